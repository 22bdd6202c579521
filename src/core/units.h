/* Quantities with units, parsed exactly (no floating point rounding):
 * sizes in bytes, rates in bits per second, times in nanoseconds. */
#ifndef HYDE_UNITS_H
#define HYDE_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Sizes: B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (1024).
 * "4.5MB" is 4500000 bytes; a fractional byte is an error. */
int unit_parse_size(const char *s, uint64_t *bytes);
/* Rates in bits per second: bit, Kbit, Mbit, Gbit, Tbit (also bps, Kbps,
 * Mbps, Gbps: bits, as the papers write them), optionally "/s"; byte rates
 * as B/s, KB/s, MB/s, GB/s. Prefix case is free; "MBps" is refused as
 * ambiguous (tc reads it as bytes, papers as bits). */
int unit_parse_rate(const char *s, uint64_t *bps);
/* Times: ns, us, ms, s, min, h. */
int unit_parse_time(const char *s, int64_t *ns);

/* The text a parse error should show for each kind. */
extern const char unit_size_expect[];
extern const char unit_rate_expect[];
extern const char unit_time_expect[];

/* Shortest exact text for a value ("4.5MB", "100Mbit", "10ms"); returns buf. */
char *unit_fmt_size(uint64_t bytes, char *buf, size_t len);
char *unit_fmt_rate(uint64_t bps, char *buf, size_t len);
char *unit_fmt_time(int64_t ns, char *buf, size_t len);
/* Human text, rounded to 3 significant digits ("1.13GB"); returns buf. */
char *unit_human_size(double bytes, char *buf, size_t len);
char *unit_human_time(double ns, char *buf, size_t len);

#endif
