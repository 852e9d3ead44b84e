/*
 * nicirq.h - which /proc/interrupts rows belong to a network interface
 * (COUNTERS.md section 6), for the Per Processor Network Interface Card
 * Activity set (src/provider/nicirq.c). Exposed so a unit test can feed
 * action names as strings.
 */
#ifndef GETCOUNTER_NICIRQ_H
#define GETCOUNTER_NICIRQ_H

#include <stddef.h>

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

#endif
