-- hyde.lua: Wireshark dissectors for the protocols of hyde's emulated
-- datacenter (hyde's README.md, "Looking at a run"):
--
--   hyde_shuffle  the shuffle service (emul/shuffle.h), TCP port 13562:
--                 a reduce's fetch "GET <job> <reduce> <n> <map>:<bytes> ..."
--                 and the map output partitions that come back;
--   hyde_dn       the data service, HDFS's DataNode (emul/datanode.h), TCP
--                 port 9866: "READ <uid> <offset> <len>", "WRITE <uid> <len>
--                 [<ip>,...]" with the block bytes, "OK <n> <first> <last>"
--                 and its hop lines, "ERR <where>: <why>"; a block uid is
--                 kind << 62 | job << 32 | index (1 input, 2 output);
--   hyde_ocs      the OCS crossbar's control protocol (emul/README.md): the
--                 records of the ocs-control interface of `hyde pcap`
--                 (exported PDUs naming this dissector), or a TCP port
--                 given in the preferences or with Decode As.
--
-- hyde's run captures keep 128 bytes of each frame: a request line is
-- usually whole there; `hyde run --snaplen 0` keeps everything. What the
-- capture cut is marked "[cut by the snaplen]" and decoded as far as it
-- goes. Data segments are placed in their stream (which map's partition,
-- which block offset) from the request seen earlier in the connection.
--
-- Installed by hyde's `make install` into Wireshark's global Lua plugin
-- directory; or: tshark -X lua_script:hyde.lua -r run.pcapng
--
-- Fields, for filters and tshark -T fields:
--   hyde_shuffle.job .reduce .n_parts .map .part_bytes .bytes_asked
--                .data_map .data_offset
--   hyde_dn.op .uid .kind .job .index .offset .len .next_hop .status
--           .hops .first_byte_ns .last_byte_ns .error .data_offset
--   hyde_ocs.request .status .circuit .src .dst .event .time .param
--            .error .stalled .n_up .n_down .ready

local SHUFFLE_PORT = 13562
local DN_PORT = 9866

local f_tcp_seq = Field.new("tcp.seq")
local f_tcp_stream = Field.new("tcp.stream")

-- ---------------------------------------------------------------------
-- helpers

-- The text of a line at offset off of tvb: its end (the '\n' or the end
-- of what was captured), whether it ended, and whether the capture cut it.
local function line_at(tvb, off)
	local cap = tvb:len()
	local i = off
	while i < cap do
		if tvb(i, 1):uint() == 10 then
			return tvb(off, i - off):string(), i + 1 - off, true
		end
		i = i + 1
	end
	return tvb(off, cap - off):string(), cap - off, false
end

local function cut(tvb)
	return tvb:len() < tvb:reported_len()
end

-- A UInt64 from decimal digits (Lua numbers are doubles: a uid needs 63
-- bits).
local function u64(s)
	if not s or not s:match("^%d+$") or #s > 20 then return nil end
	local v = UInt64(0)
	for c in s:gmatch("%d") do
		v = v * 10 + tonumber(c)
	end
	return v
end

local function words(s)
	local t = {}
	for w in s:gmatch("%S+") do t[#t + 1] = w end
	return t
end

-- The stream's state, by tcp.stream, for data segments that follow a
-- request seen earlier.
local function stream_id()
	local s = f_tcp_stream()
	return s and s.value or nil
end

local function rel_seq()
	local s = f_tcp_seq()
	return s and s.value or nil
end

-- ---------------------------------------------------------------------
-- the shuffle service

local shuffle = Proto("hyde_shuffle", "hyde shuffle service")
local sf = {
	request = ProtoField.string("hyde_shuffle.request", "Request"),
	job = ProtoField.uint32("hyde_shuffle.job", "Job (index in the workload)", base.DEC),
	reduce = ProtoField.uint32("hyde_shuffle.reduce", "Reduce", base.DEC),
	n_parts = ProtoField.uint32("hyde_shuffle.n_parts", "Partitions asked", base.DEC),
	part = ProtoField.string("hyde_shuffle.part", "Partition"),
	map = ProtoField.uint32("hyde_shuffle.map", "Map", base.DEC),
	part_bytes = ProtoField.uint64("hyde_shuffle.part_bytes", "Partition bytes", base.DEC),
	bytes_asked = ProtoField.uint64("hyde_shuffle.bytes_asked", "Bytes asked (all partitions)", base.DEC),
	data = ProtoField.bytes("hyde_shuffle.data", "Map output data"),
	data_map = ProtoField.uint32("hyde_shuffle.data_map", "Partition of map", base.DEC),
	data_offset = ProtoField.uint64("hyde_shuffle.data_offset", "Offset in the partition", base.DEC),
	note = ProtoField.string("hyde_shuffle.note", "Note"),
}
shuffle.fields = { sf.request, sf.job, sf.reduce, sf.n_parts, sf.part, sf.map,
	sf.part_bytes, sf.bytes_asked, sf.data, sf.data_map, sf.data_offset, sf.note }

local shuffle_req = {} -- tcp.stream -> { parts = {{map, bytes}}, job, reduce, len }

-- a new capture file: its streams are numbered afresh
function shuffle.init()
	shuffle_req = {}
end

local function shuffle_request(tvb, pinfo, tree)
	local text, used, ended = line_at(tvb, 0)
	if not ended and not cut(tvb) then
		-- the line goes on in the next segment
		pinfo.desegment_offset = 0
		pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
		return
	end
	local t = tree:add(shuffle, tvb(0, used))
	t:add(sf.request, tvb(0, used), text)
	local w = words(text)
	if w[1] ~= "GET" then
		t:add(sf.note, "not a fetch request")
		pinfo.cols.info = "hyde shuffle: " .. text
		return
	end
	local job, reduce, n = tonumber(w[2]), tonumber(w[3]), tonumber(w[4])
	if job then t:add(sf.job, tvb(0, used), job) end
	if reduce then t:add(sf.reduce, tvb(0, used), reduce) end
	if n then t:add(sf.n_parts, tvb(0, used), n) end
	local parts, total = {}, UInt64(0)
	for i = 5, #w do
		local m, b = w[i]:match("^(%d+):(%d+)$")
		if m then
			local bytes = u64(b)
			local pt = t:add(sf.part, tvb(0, used), w[i])
			pt:add(sf.map, tvb(0, used), tonumber(m))
			pt:add(sf.part_bytes, tvb(0, used), bytes)
			parts[#parts + 1] = { map = tonumber(m), bytes = bytes }
			total = total + bytes
		end
	end
	t:add(sf.bytes_asked, tvb(0, used), total)
	local whole = ended and n and #parts == n
	if not whole then
		t:add(sf.note, "[cut by the snaplen: " .. #parts .. " of " .. (n or "?") .. " partitions seen]")
	end
	local id = stream_id()
	if id and whole then
		shuffle_req[id] = { parts = parts, job = job, reduce = reduce }
	end
	pinfo.cols.info = string.format("hyde shuffle GET job %s reduce %s: %s partition(s), %s bytes%s",
		tostring(job), tostring(reduce), tostring(n), tostring(total), whole and "" or " [cut]")
end

local function shuffle_data(tvb, pinfo, tree)
	local t = tree:add(shuffle, tvb())
	t:add(sf.data, tvb())
	local id, seq = stream_id(), rel_seq()
	local req = id and shuffle_req[id]
	local len = tvb:reported_len()
	if not req or not seq then
		pinfo.cols.info = "hyde shuffle: map output data, " .. len .. " bytes (request not seen)"
		return
	end
	-- place [off, off + len) among the partitions, back to back
	local off = UInt64(seq - 1)
	local start = UInt64(0)
	local desc = {}
	for _, p in ipairs(req.parts) do
		local stop = start + p.bytes
		if off < stop and off + len > start then
			local o = off > start and off - start or UInt64(0)
			t:add(sf.data_map, tvb(), p.map)
			t:add(sf.data_offset, tvb(), o)
			desc[#desc + 1] = "map " .. p.map .. " at " .. tostring(o)
		end
		start = stop
	end
	pinfo.cols.info = string.format("hyde shuffle: %d bytes of job %s's map output for reduce %s (%s)",
		len, tostring(req.job), tostring(req.reduce),
		#desc > 0 and table.concat(desc, ", ") or "past the partitions asked")
end

function shuffle.dissector(tvb, pinfo, tree)
	if tvb:reported_len() == 0 then return 0 end
	pinfo.cols.protocol = "hyde shuffle"
	if pinfo.dst_port == SHUFFLE_PORT then
		shuffle_request(tvb, pinfo, tree)
	else
		shuffle_data(tvb, pinfo, tree)
	end
	return tvb:len()
end

-- ---------------------------------------------------------------------
-- the data service (HDFS DataNode)

local dn = Proto("hyde_dn", "hyde data service (HDFS DataNode)")
local kinds = { [1] = "input", [2] = "output" }
local df = {
	line = ProtoField.string("hyde_dn.line", "Line"),
	op = ProtoField.string("hyde_dn.op", "Operation"),
	uid = ProtoField.uint64("hyde_dn.uid", "Block uid", base.DEC),
	kind = ProtoField.string("hyde_dn.kind", "Block kind"),
	job = ProtoField.uint32("hyde_dn.job", "Job (index in the workload)", base.DEC),
	index = ProtoField.uint32("hyde_dn.index", "Task (input: map; output: reduce)", base.DEC),
	offset = ProtoField.uint64("hyde_dn.offset", "Offset", base.DEC),
	len = ProtoField.uint64("hyde_dn.len", "Length", base.DEC),
	next_hop = ProtoField.ipv4("hyde_dn.next_hop", "Next hop of the pipeline"),
	status = ProtoField.string("hyde_dn.status", "Status"),
	hops = ProtoField.uint32("hyde_dn.hops", "Connections further down", base.DEC),
	first = ProtoField.uint64("hyde_dn.first_byte_ns", "First byte (ns)", base.DEC),
	last = ProtoField.uint64("hyde_dn.last_byte_ns", "Last byte (ns)", base.DEC),
	hop = ProtoField.string("hyde_dn.hop", "Hop"),
	err = ProtoField.string("hyde_dn.error", "Error"),
	data = ProtoField.bytes("hyde_dn.data", "Block data"),
	data_offset = ProtoField.uint64("hyde_dn.data_offset", "Offset in the block", base.DEC),
	note = ProtoField.string("hyde_dn.note", "Note"),
}
dn.fields = { df.line, df.op, df.uid, df.kind, df.job, df.index, df.offset, df.len,
	df.next_hop, df.status, df.hops, df.first, df.last, df.hop, df.err, df.data,
	df.data_offset, df.note }

local dn_req = {} -- tcp.stream -> { op, uid, offset, len, line_len, desc }

function dn.init()
	dn_req = {}
end

-- kind, job and index of a uid (datanode_uid_split)
local function uid_split(uid)
	local kind = uid:rshift(62):tonumber()
	local job = uid:rshift(32):band(0x3fffffff):tonumber()
	local idx = uid:band(0xffffffff):tonumber()
	return kind, job, idx
end

local function add_uid(t, r, s)
	local uid = u64(s)
	if not uid then return nil end
	t:add(df.uid, r, uid)
	local kind, job, idx = uid_split(uid)
	t:add(df.kind, r, kinds[kind] or ("unknown (" .. kind .. ")"))
	t:add(df.job, r, job)
	t:add(df.index, r, idx)
	return string.format("%s block of job %d %s %d", kinds[kind] or "?", job,
		kind == 2 and "reduce" or "map", idx)
end

-- A request line at the start of the client's stream; the rest of the
-- segment is block data (WRITE).
local function dn_request(tvb, pinfo, t)
	local text, used, ended = line_at(tvb, 0)
	if not ended and not cut(tvb) then
		pinfo.desegment_offset = 0
		pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
		return nil
	end
	local r = tvb(0, used)
	t:add(df.line, r, text)
	local w = words(text)
	local req = { op = w[1], line_len = used }
	t:add(df.op, r, w[1] or "")
	local what = w[2] and add_uid(t, r, w[2]) or "?"
	if w[1] == "READ" and #w == 4 then
		req.offset, req.len = u64(w[3]), u64(w[4])
		t:add(df.offset, r, req.offset)
		t:add(df.len, r, req.len)
		pinfo.cols.info = string.format("hyde dn READ %s: %s bytes from %s", what,
			tostring(req.len), tostring(req.offset))
	elseif w[1] == "WRITE" and #w >= 3 then
		req.len = u64(w[3])
		t:add(df.len, r, req.len)
		local hops = {}
		if w[4] then
			for ip in w[4]:gmatch("[^,]+") do
				t:add(df.next_hop, r, Address.ip(ip))
				hops[#hops + 1] = ip
			end
		end
		pinfo.cols.info = string.format("hyde dn WRITE %s: %s bytes%s", what, tostring(req.len),
			#hops > 0 and (", then to " .. table.concat(hops, ", ")) or "")
	else
		t:add(df.note, r, "not a request of the data service")
		pinfo.cols.info = "hyde dn: " .. text
	end
	if not ended then
		t:add(df.note, r, "[cut by the snaplen]")
	end
	req.desc = what
	return req, used
end

local function dn_data(tvb, pinfo, t, off, req, seq, base_off)
	if tvb:reported_len() <= off then return end
	local len = tvb:reported_len() - off
	local r = off < tvb:len() and tvb(off) or nil
	if r then t:add(df.data, r) end
	if req and seq then
		local o = UInt64(seq - 1 + off) - UInt64(base_off)
		t:add(df.data_offset, r or tvb(0, 0), o)
		if off == 0 then
			pinfo.cols.info = string.format("hyde dn: %d bytes of the %s at %s", len,
				req.desc or "block", tostring(o))
		end
	elseif off == 0 then
		pinfo.cols.info = "hyde dn: " .. len .. " bytes of block data (request not seen)"
	end
end

-- The service's reply: OK and its hop lines, or ERR.
local function dn_reply(tvb, pinfo, t)
	local off, info = 0, nil
	while off < tvb:len() do
		local text, used, ended = line_at(tvb, off)
		local r = tvb(off, used)
		t:add(df.line, r, text)
		local w = words(text)
		if w[1] == "OK" then
			t:add(df.status, r, "OK")
			if w[2] then t:add(df.hops, r, tonumber(w[2])) end
			if w[3] then t:add(df.first, r, u64(w[3])) end
			if w[4] then t:add(df.last, r, u64(w[4])) end
			info = "hyde dn OK: every byte in, " .. (w[2] or "?") .. " connection(s) further down"
		elseif w[1] == "ERR" then
			t:add(df.status, r, "ERR")
			t:add(df.err, r, text:sub(5))
			info = "hyde dn " .. text
		elseif #w == 9 then
			t:add(df.hop, r, string.format("%s:%s -> %s:%s, %s bytes", w[1], w[2], w[3], w[4], w[9]))
		end
		if not ended then
			t:add(df.note, r, "[cut by the snaplen]")
		end
		off = off + used
	end
	pinfo.cols.info = info or "hyde dn reply"
end

function dn.dissector(tvb, pinfo, tree)
	if tvb:reported_len() == 0 then return 0 end
	pinfo.cols.protocol = "hyde dn"
	local t = tree:add(dn, tvb())
	local id, seq = stream_id(), rel_seq()
	if pinfo.dst_port == DN_PORT then
		-- the client: a request line first, then (WRITE) the block
		if seq == 1 then
			local req, used = dn_request(tvb, pinfo, t)
			if not req then return end
			if id then dn_req[id] = req end
			dn_data(tvb, pinfo, t, used, req, seq, req.line_len)
		else
			local req = id and dn_req[id]
			dn_data(tvb, pinfo, t, 0, req, seq, req and req.line_len or 0)
		end
	else
		local req = id and dn_req[id]
		local head = tvb:len() >= 3 and tvb(0, 3):string() or ""
		if seq == 1 and (head == "OK " or head == "ERR") and
		   (not req or req.op ~= "READ" or head == "ERR") then
			dn_reply(tvb, pinfo, t)
		else
			-- READ: the block's bytes from the offset asked
			dn_data(tvb, pinfo, t, 0, req, seq, 0)
			if req and req.offset then
				-- shown relative to the block, not the stream
				pinfo.cols.info = tostring(pinfo.cols.info) ..
					" (block offset " .. tostring(req.offset + UInt64(seq - 1)) .. ")"
			end
		end
	end
	return tvb:len()
end

-- ---------------------------------------------------------------------
-- the OCS crossbar's control protocol

local ocs = Proto("hyde_ocs", "hyde OCS crossbar control")
local of = {
	line = ProtoField.string("hyde_ocs.line", "Line"),
	request = ProtoField.string("hyde_ocs.request", "Request"),
	status = ProtoField.string("hyde_ocs.status", "Status"),
	err = ProtoField.string("hyde_ocs.error", "Error"),
	circuit = ProtoField.string("hyde_ocs.circuit", "Circuit"),
	src = ProtoField.uint32("hyde_ocs.src", "From port", base.DEC),
	dst = ProtoField.uint32("hyde_ocs.dst", "To port", base.DEC),
	bidir = ProtoField.bool("hyde_ocs.bidirectional", "Both ways"),
	event = ProtoField.string("hyde_ocs.event", "Circuit event"),
	time = ProtoField.uint64("hyde_ocs.time", "Crossbar time (CLOCK_MONOTONIC ns)", base.DEC),
	param = ProtoField.string("hyde_ocs.param", "Parameter"),
	stalled = ProtoField.string("hyde_ocs.stalled", "Ports stalled for delta"),
	n_up = ProtoField.uint32("hyde_ocs.n_up", "Circuits coming up", base.DEC),
	n_down = ProtoField.uint32("hyde_ocs.n_down", "Circuits going down", base.DEC),
	ready = ProtoField.uint64("hyde_ocs.ready", "New circuits up at (ns)", base.DEC),
	state = ProtoField.string("hyde_ocs.state", "Circuit state"),
}
ocs.fields = { of.line, of.request, of.status, of.err, of.circuit, of.src, of.dst,
	of.bidir, of.event, of.time, of.param, of.stalled, of.n_up, of.n_down, of.ready,
	of.state }

local requests = { set = true, show = true, stats = true, watch = true, unwatch = true,
	events = true, delta = true, time = true, help = true, quit = true }

local function add_circuit(t, r, s)
	local a, sep, b = s:match("^(%d+)([-><])(%d+)$")
	if not a then return false end
	local c = t:add(of.circuit, r, s)
	c:add(of.src, r, tonumber(a))
	c:add(of.dst, r, tonumber(b))
	c:add(of.bidir, r, sep == "-")
	return true
end

-- One line; `sent`: from the client (a request).
local function ocs_line(t, r, text, sent)
	local w = words(text)
	local l = t:add(of.line, r, text)
	if #w == 0 then return "" end
	if sent then
		l:add(of.request, r, w[1])
		if not requests[w[1]] then
			l:add(of.err, r, "not a request of the crossbar")
		end
		if w[1] == "set" then
			for i = 2, #w do
				if w[i] ~= "none" then add_circuit(l, r, w[i]) end
			end
		end
		return "request " .. text
	end
	if w[1] == "ok" or w[1] == "err" then
		l:add(of.status, r, w[1])
		if w[1] == "err" then
			l:add(of.err, r, text:sub(5))
			return "refused: " .. text:sub(5)
		end
		for i = 2, #w do
			local k, v = w[i]:match("^([%w_]+)=(.*)$")
			if k then
				l:add(of.param, r, w[i])
				if k == "stalled" then l:add(of.stalled, r, v)
				elseif k == "up" and tonumber(v) then l:add(of.n_up, r, tonumber(v))
				elseif k == "down" and tonumber(v) then l:add(of.n_down, r, tonumber(v))
				elseif k == "ready" and u64(v) then l:add(of.ready, r, u64(v))
				end
			end
		end
		return "reply " .. text
	end
	-- watch lines "up|down I J T"; events "event up|down I J T"; show
	-- "circuit I J up|pending T"
	local ev = w
	if w[1] == "event" then ev = { w[2], w[3], w[4], w[5] } end
	if (ev[1] == "up" or ev[1] == "down") and tonumber(ev[2]) and tonumber(ev[3]) then
		l:add(of.event, r, ev[1])
		l:add(of.src, r, tonumber(ev[2]))
		l:add(of.dst, r, tonumber(ev[3]))
		if u64(ev[4]) then l:add(of.time, r, u64(ev[4])) end
		return string.format("circuit %s>%s %s", ev[2], ev[3], ev[1])
	end
	if w[1] == "circuit" and #w >= 5 then
		l:add(of.src, r, tonumber(w[2]))
		l:add(of.dst, r, tonumber(w[3]))
		l:add(of.state, r, w[4])
		if u64(w[5]) then l:add(of.time, r, u64(w[5])) end
		return string.format("circuit %s>%s %s", w[2], w[3], w[4])
	end
	for i = 2, #w do
		if w[i]:find("=") then l:add(of.param, r, w[i]) end
	end
	return text
end

local ocs_port = 0 -- TCP: none unless the preferences say
ocs.prefs.tcp_port = Pref.uint("TCP port", 0,
	"A TCP port carrying the control protocol (the crossbar listens on a UNIX socket: a bridge such as socat puts it on TCP)")

function ocs.prefs_changed()
	local tcp = DissectorTable.get("tcp.port")
	if ocs_port ~= 0 then tcp:remove(ocs_port, ocs) end
	ocs_port = ocs.prefs.tcp_port
	if ocs_port ~= 0 then tcp:add(ocs_port, ocs) end
end

function ocs.dissector(tvb, pinfo, tree)
	if tvb:len() == 0 then return 0 end
	pinfo.cols.protocol = "hyde OCS"
	local sent
	if pinfo.port_type == 2 and ocs_port ~= 0 then -- TCP
		sent = pinfo.dst_port == ocs_port
	else
		sent = pinfo.p2p_dir == 0 -- P2P_DIR_SENT: the controller's request
	end
	local t = tree:add(ocs, tvb())
	local off, infos = 0, {}
	while off < tvb:len() do
		local text, used = line_at(tvb, off)
		text = text:gsub("\r$", "")
		infos[#infos + 1] = ocs_line(t, tvb(off, used), text, sent)
		off = off + used
	end
	pinfo.cols.info = "hyde OCS " .. (sent and "controller -> crossbar: " or "crossbar -> controller: ") ..
		table.concat(infos, "; ")
	return tvb:len()
end

-- ---------------------------------------------------------------------

local tcp = DissectorTable.get("tcp.port")
tcp:add(SHUFFLE_PORT, shuffle)
tcp:add(DN_PORT, dn)
tcp:add_for_decode_as(ocs)
