/*
 * dynlib.c - load an optional library when its feature is used (dynlib.h).
 */
#include <dlfcn.h>
#include <string.h>

#include "dynlib.h"

void *
dynlib_open(const char *const *sonames, const struct dynlib_sym *syms, size_t n,
	    const char *package, struct err *err)
{
	void *h = NULL;
	const char *why = "no soname given";

	for (size_t i = 0; sonames[i] && !h; i++) {
		h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			why = dlerror();
	}
	if (!h) {
		err_set(err, "cannot load %s (%s): install %s", sonames[0] ? sonames[0] : "?",
			why ? why : "not found", package);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(h, syms[i].name);
		if (!p) {
			err_set(err, "%s lacks %s: install a newer %s", sonames[0], syms[i].name,
				package);
			dlclose(h);
			return NULL;
		}
		*syms[i].slot = p;
	}
	return h;
}
