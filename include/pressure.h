/*
 * pressure.h - the parser of /proc/pressure/{cpu,memory,io,irq} (PSI, Linux
 * 4.20+): "some avg10=0.00 avg60=0.00 avg300=0.00 total=1234" and the same
 * with "full"; total is the stall time in microseconds since boot.
 */
#ifndef GETCOUNTER_PRESSURE_H
#define GETCOUNTER_PRESSURE_H

#include <stddef.h>
#include <stdint.h>

/* Bits of pressure_parse's result. */
#define PRESSURE_SOME 1u
#define PRESSURE_FULL 2u

/* The total= of the "some" and "full" lines of buf[0..len) into *some and
 * *full; returns the mask of lines found with a total. Allocates nothing;
 * a line without total= or with a malformed one is not found. */
unsigned pressure_parse(const char *buf, size_t len, uint64_t *some, uint64_t *full);

#endif
