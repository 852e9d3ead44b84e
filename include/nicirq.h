/*
 * nicirq.h - which /proc/interrupts rows belong to a network interface
 * (COUNTERS.md section 6), for the Per Processor Network Interface Card
 * Activity set (src/provider/nicirq.c). Exposed so a unit test can feed
 * action names as strings.
 */
#ifndef GETCOUNTER_NICIRQ_H
#define GETCOUNTER_NICIRQ_H

#include <stddef.h>
#include <stdint.h>

#include "nicdev.h"

/*
 * Nonzero when one of the action names in actions[0 .. len) (a row's
 * "eth0-TxRx-0" or "acpi, i801_smbus": names separated by commas) belongs
 * to the interface: with virtio a virtio device name ("virtio2"), an action
 * that starts with it followed by '-' ("virtio2-input.0"); otherwise an
 * action that contains ifname as a token: at the start of the name or after
 * a character other than a letter, digit, '.' or '_', and followed by '-',
 * ':' or the end of the name ("eth1" is in "eth1-rx-0" and "i40e-eth1:lsc",
 * never in "eth10-TxRx-0" or "veth1-rx").
 */
int nicirq_action_match(const char *actions, size_t len, const char *ifname, const char *virtio);

/* This read's rows of /proc/interrupts (after the header) and a scratch
 * array of at least ncols counts for interrupts_row_next. */
struct nicirq_rows {
	const char *rows, *end;
	uint64_t *vals;
	size_t ncols;
};

/*
 * The IRQs of interface ifname whose device is dev (nicdev_find), into
 * *irqs (grown as needed, *cap its size; the caller frees it), ascending,
 * no repeats: the numbers in the device's msi_irqs/, else the rows whose
 * action names name the interface (nicirq_action_match). *from_msi tells
 * which. Returns the count. Also used by the Per Processor Network
 * Activity Cycles set (src/provider/netcycles.c).
 */
size_t nicirq_device_irqs(struct procfs *fs, const char *ifname, const struct nicdev *dev,
			  const struct nicirq_rows *rows, unsigned **irqs, size_t *cap,
			  int *from_msi);

#endif
