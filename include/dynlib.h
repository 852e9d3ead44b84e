/*
 * dynlib.h - optional libraries loaded when a feature is used, not when
 * getcounter starts. libmicrohttpd (with GnuTLS) and libpcap (with D-Bus)
 * each add megabytes of resident memory and a few milliseconds of dynamic
 * linking to every run, though only --serve and the capture use them. The
 * feature's file is compiled against the library's header and calls it
 * through pointers that dynlib_open fills from the first soname that loads.
 */
#ifndef GETCOUNTER_DYNLIB_H
#define GETCOUNTER_DYNLIB_H

#include <stddef.h>

#include "util.h"

/* One symbol to resolve: its name and where its address goes. */
struct dynlib_sym {
	const char *name;
	void **slot;
};

/* Load the first of sonames (NULL-terminated) that dlopen accepts and
 * resolve every symbol of syms (n of them) into its slot. Returns the
 * handle (kept for the rest of the run), or NULL with err naming the
 * library or the missing symbol and what to install (package). */
void *dynlib_open(const char *const *sonames, const struct dynlib_sym *syms, size_t n,
		  const char *package, struct err *err);

#endif
