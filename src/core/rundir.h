/* The run directory: what `hyde run` (emulation) and `hyde sim` write and
 * `hyde analyze` reads. One place fixes every file name and CSV header, so
 * writers and readers cannot drift apart.
 *
 * Time: every timestamp in a run directory is nanoseconds since the Unix
 * epoch (CLOCK_REALTIME), the clock of pcap timestamps, so application
 * times and packet times compare directly. The simulator writes simulated
 * time from 0 in the same columns.
 *
 * Layout:
 *   inputs/topology.topo, inputs/workload.wl   copies of what was run
 *   manifest.csv     one line per TCP connection (emulation)
 *   events.log       the controller's event log, one event a line
 *   app/jobs.csv     the controller's view of every job
 *   app/coflows.csv  every coflow (one job's shuffle) with its T(C)
 *   app/fetches.csv  the reducers' own timestamps, one line per flow
 *   app/summary.json the controller's figures of the run (emulation; hyde
 *                    analyze puts them into summary.json)
 *   pcap/<node>-<iface>.pcap   libpcap captures of every ToR port
 *                    (ns-3 style names: tor3-h1, tor3-up, tor3-ocs)
 *   flows.csv, coflows.csv, jobs.csv, summary.json, *.png   the analysis
 *                    (hyde analyze for emulation; hyde sim writes the same)
 *
 * A flow is one TCP connection in emulation, of one of three kinds:
 * - shuffle: one fetch: reduce r of job j pulls the partitions of one or
 *   more of j's maps that ran on one host (as Hadoop's fetcher does): the
 *   reduce (client) connects to the shuffle service of that host
 *   (server), sends a request, and the server sends exactly `bytes` bytes
 *   of partition data; data flows srv -> cli;
 * - input: map m reads (part of) its input from a replica holder's data
 *   service (HDFS DataNode): client the map, server the holder, data srv
 *   -> cli, exactly `bytes`;
 * - output: one hop of reduce r's HDFS write pipeline: the client (the
 *   reduce, or the data service of the previous replica) sends a request
 *   line of req_bytes bytes, then `bytes` bytes of the output part, to the
 *   next replica's data service (server); data cli -> srv.
 * A flow's source is where its data comes from, its destination where it
 * goes: the receiver, whose ToR host port the analyzer measures it on.
 */
#ifndef HYDE_RUNDIR_H
#define HYDE_RUNDIR_H

#define RUNDIR_INPUT_TOPO "inputs/topology.topo"
#define RUNDIR_INPUT_WL "inputs/workload.wl"
#define RUNDIR_EVENTS "events.log"
#define RUNDIR_PCAP_DIR "pcap"
/* Emulation, with an OCS: the crossbar's circuit events as its watchers get
 * them ("up|down I J T", T its CLOCK_MONOTONIC ns), and the controller's
 * conversation with it ("<realtime ns> ctl|watch >|< line": '>' a request,
 * '<' a reply line; its "time" exchange puts T on the captures' clock). */
#define RUNDIR_OCS_EVENTS "ocs-events.log"
#define RUNDIR_OCS_CONTROL "ocs-control.log"

/* conn: connection id; flow, coflow, job: ids (job is the workload's id
 * string, coflow the job's index, flow a number unique in the run); maps:
 * how many map outputs the fetch carries (1 for input and output flows);
 * reduce: the task's index (the map's for an input flow); *_node: host
 * names (r0h1); *_ip dotted quads; path: eps, ocs, rack or host (the path
 * chosen when the flow started); bytes: the data bytes (partitions, block
 * bytes, output part), without any request; kind: input, shuffle or
 * output; req_bytes: what the client sends before its data when the data
 * goes client -> server (an output hop's request line), else 0; name: the
 * flow's name (ctl_flow_name, src/ctl/ctl.h), as in flows.csv. */
#define RUNDIR_MANIFEST "manifest.csv"
#define RUNDIR_MANIFEST_HEADER \
	"conn,flow,coflow,job,maps,reduce,cli_node,cli_ip,cli_port,srv_node,srv_ip,srv_port,path,bytes,kind,req_bytes,name"
/* The manifest before flows had names (hyde analyze still reads it: its
 * flows.csv then names every flow '-'). */
#define RUNDIR_MANIFEST_HEADER_V1 \
	"conn,flow,coflow,job,maps,reduce,cli_node,cli_ip,cli_port,srv_node,srv_ip,srv_port,path,bytes,kind,req_bytes"

/* The controller's record of each job. *_ns: -1 when it never happened. */
#define RUNDIR_APP_JOBS "app/jobs.csv"
#define RUNDIR_APP_JOBS_HEADER \
	"job,user,arrival_ns,ready_ns,start_ns,maps_done_ns,end_ns,maps,reduces,shuffle_bytes"

/* Each application (a job is its own without app=): its jobs and tasks,
 * its first job's submission (from the run's start), its arrival and end
 * (-1: never) and its response time (end - arrival), the containers it
 * held and their seconds from start to release (container-holding
 * schedulers; 0 otherwise). */
#define RUNDIR_APP_APPS "app/apps.csv"
#define RUNDIR_APP_APPS_HEADER \
	"app,user,jobs,tasks,submit_ns,arrival_ns,end_ns,response_ns,containers,container_s"

/* Each container a scheduler asked for: its app, host and size (cores,
 * bytes), when it was asked for, started and released (-1: never) and
 * the tasks that ran in it. */
#define RUNDIR_APP_CONTAINERS "app/containers.csv"
#define RUNDIR_APP_CONTAINERS_HEADER \
	"container,app,host,cpu,mem_bytes,requested_ns,ready_ns,released_ns,tasks"

/* Each coflow: its flows and bytes, the bytes planned over the OCS, the
 * lower bound T(C) of its OCS-eligible part (Co-scheduler eq. 2) and the
 * application's start (first connect) and end (last byte received). */
#define RUNDIR_APP_COFLOWS "app/coflows.csv"
#define RUNDIR_APP_COFLOWS_HEADER \
	"coflow,job,flows,bytes,ocs_bytes,lower_bound_ns,start_ns,end_ns"

/* The metrics NAS reports ([NAS §IV-B]), as the controller saw them,
 * on both backends: one JSON object, "paper_metrics" (src/ctl/metrics.c);
 * the simulator's summary.json carries the same object. */
#define RUNDIR_APP_PAPER_METRICS "app/paper_metrics.json"

/* The reducer's own timestamps per flow: connect() called, connection
 * established, first and last data byte received; bytes received and
 * whether every byte matched (1) or not (0). */
#define RUNDIR_APP_FETCHES "app/fetches.csv"
#define RUNDIR_APP_FETCHES_HEADER \
	"flow,conn,connect_ns,established_ns,first_byte_ns,last_byte_ns,bytes,verified"

/* Analysis outputs (hyde analyze; hyde sim writes the same columns).
 * flows.csv: one line per flow. fct_ns = end_ns - start_ns where start is
 * the first SYN and end the receiver's ACK of the last data byte (or, in
 * the simulator, the flow's start and end). *_bytes: payload seen on the
 * OCS and EPS ports; retrans_bytes: payload sent more than once;
 * app_fct_ns: the application's view (connect to last byte), -1 if
 * unknown; kind: input, shuffle or output; src, dst: the hosts the data
 * goes from and to; name: what the flow is (job, kind, task, the map or
 * read or hop, its source host: ctl_flow_name in src/ctl/ctl.h), the same
 * on both backends for the same decisions, where flow ids are not ('-':
 * a run from before names). When start and end are, on both backends:
 * docs/definitions.md. */
#define RUNDIR_FLOWS "flows.csv"
#define RUNDIR_FLOWS_HEADER \
	"flow,coflow,job,path,bytes,start_ns,end_ns,fct_ns,ocs_bytes,eps_bytes,retrans_bytes,app_fct_ns,kind,src,dst,name"
/* flows.csv before its name column (hyde fidelity and hyde compare read
 * both). */
#define RUNDIR_FLOWS_HEADER_V1 \
	"flow,coflow,job,path,bytes,start_ns,end_ns,fct_ns,ocs_bytes,eps_bytes,retrans_bytes,app_fct_ns,kind,src,dst"
#define RUNDIR_COFLOWS "coflows.csv"
#define RUNDIR_COFLOWS_HEADER \
	"coflow,job,flows,bytes,start_ns,end_ns,cct_ns,lower_bound_ns,ocs_bytes,eps_bytes,app_cct_ns"
/* jobs.csv: class is heavy (shuffle of at least T_e: Co-scheduler's
 * shuffle-heavy) or light; the *_ns after it cut the JCT into parts that
 * add up to it (src/core/breakdown.h), -1 for a job that did not end. */
#define RUNDIR_JOBS "jobs.csv"
#define RUNDIR_JOBS_HEADER \
	"job,user,arrival_ns,start_ns,end_ns,jct_ns,maps,reduces,shuffle_bytes,cross_rack_bytes," \
	"class,parents_ns,queue_ns,map_ns,wait_ns,shuffle_ns,reduce_ns"
#define RUNDIR_SUMMARY "summary.json"
/* summary.json's schema (docs/summary-json.md): the same keys for both
 * backends, the run's figures as the controller counted them; an emulated
 * run's adds the analyzer's under "analysis". Raised when a key changes
 * meaning or goes; new keys do not raise it. */
#define RUNDIR_SUMMARY_SCHEMA 1
/* Emulation: the controller's figures of the run (summary.json's keys
 * without "analysis"), which hyde analyze puts into summary.json. */
#define RUNDIR_APP_SUMMARY "app/summary.json"

/* The port the per-host shuffle service listens on (Hadoop's
 * ShuffleHandler default). */
#define HYDE_SHUFFLE_PORT 13562
/* The port of the per-host data service (HDFS DataNode's data transfer
 * port). */
#define HYDE_DN_PORT 9866
/* The TOS byte a fetching reducer puts on its packets: the fabric routes
 * them over the EPS even to an OCS address, so that a shuffle's requests
 * and ACKs need no circuit in the reverse direction (see emul/README.md). */
#define HYDE_TOS_REVERSE 0x04

#endif
