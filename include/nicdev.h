/*
 * nicdev.h - the device behind a network interface (COUNTERS.md section 6):
 * `sys/class/net/IF/device`, or its parent when that is a virtio device
 * (`device/subsystem` -> .../virtio), since the PCI function holds the
 * IRQs and the power attributes. Virtual interfaces (no `device` link) have
 * none. Shared by the Physical and the Per Processor Network Interface Card
 * Activity sets; a discovery-time helper, not for the hot path.
 */
#ifndef GETCOUNTER_NICDEV_H
#define GETCOUNTER_NICDEV_H

#include <dirent.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "procfs.h"

struct nicdev {
	/* The device directory relative to the root, without a trailing
	 * slash: "sys/class/net/eth0/device", or "sys/class/net/eth0/device/.."
	 * for virtio (the kernel resolves ".." after the symlink, so this is
	 * the virtio device's parent, the PCI function). */
	char dir[96];
	/* The virtio device's name ("virtio2", as its IRQ actions are named
	 * "virtio2-input.0"), or "" when the device is not virtio. */
	char virtio[32];
};

/* Find the device of interface ifname under fs's current root. Returns 0
 * with *dev filled, or -1 when the interface has no device (a virtual
 * interface, or no such interface). Reads two symlinks; allocates nothing. */
static inline int
nicdev_find(struct procfs *fs, const char *ifname, struct nicdev *dev)
{
	char link[256], path[sizeof(dev->dir) + 16];
	const char *base;
	int n;

	dev->virtio[0] = '\0';
	n = snprintf(dev->dir, sizeof(dev->dir), "sys/class/net/%s/device", ifname);
	/* room left for the "/.." of a virtio device */
	if (n < 0 || (size_t)n + 3 >= sizeof(dev->dir) || !procfs_exists(fs, dev->dir))
		return -1;
	snprintf(path, sizeof(path), "%s/subsystem", dev->dir);
	if (procfs_readlink(fs, path, link, sizeof(link)) <= 0)
		return 0; /* no bus link: the device directory itself */
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strcmp(base, "virtio") != 0)
		return 0;
	if (procfs_readlink(fs, dev->dir, link, sizeof(link)) > 0) {
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (strlen(base) < sizeof(dev->virtio))
			memcpy(dev->virtio, base, strlen(base) + 1);
	}
	memcpy(dev->dir + n, "/..", 4);
	return 0;
}

/* Live: nonzero when sys/class/net/NAME is an interface of this process's
 * network namespace. After `unshare -n` (or `ip netns exec` in a mount
 * namespace that kept the old /sys) sysfs still lists the namespace it was
 * mounted in; such a name is not here, or here with another ifindex. */
static inline int
nicdev_in_our_netns(struct procfs *fs, const char *name)
{
	char path[96];
	uint64_t sys_ifindex;
	unsigned ours = if_nametoindex(name);

	snprintf(path, sizeof(path), "sys/class/net/%.64s/ifindex", name);
	return ours != 0 && procfs_read_u64(fs, path, &sys_ifindex) == 0 && sys_ifindex == ours;
}

/* For an entry name (of type, as procfs_list gives it) of sys/class/net:
 * 0 with *dev filled when it is an interface whose name is shorter than
 * name_max and that has a device (live: and that is of our network
 * namespace); -1 for bonding_masters, a longer name, a virtual interface
 * or another namespace's interface. */
static inline int
nicdev_of_entry(struct procfs *fs, const char *name, unsigned char type, size_t name_max,
		struct nicdev *dev)
{
	if (type == DT_REG /* bonding_masters */ || strlen(name) >= name_max)
		return -1;
	if (nicdev_find(fs, name, dev) < 0)
		return -1;
	return !procfs_is_live(fs) || nicdev_in_our_netns(fs, name) ? 0 : -1;
}

#endif
