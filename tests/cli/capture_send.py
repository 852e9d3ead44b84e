#!/usr/bin/env python3
# capture_send.py - sends hand-built Ethernet frames on an interface through
# an AF_PACKET socket, for the Network Capture tests (test_capture*.sh).
#   capture_send.py IF SRC_MAC DST_MAC mix        the known mix below
#   capture_send.py IF SRC_MAC DST_MAC flood N LEN  N UDP frames of LEN bytes
# Destination IPs are never the receiver's (10.99.99.99), so the receiving
# namespace answers nothing and the link carries only these frames.
import socket
import struct
import sys


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ipv4(proto, dst, payload_len):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, 0, 0, 64, proto, 0,
                       bytes([10, 99, 99, 1]), bytes(dst))


def ipv6(nh, dst0, payload_len):
    dst = bytes([dst0]) + bytes(14) + b"\x16"
    return struct.pack("!IHBB", 0x60000000, payload_len, nh, 64) + bytes(16) + dst


def pad(frame, length):
    assert len(frame) <= length, (len(frame), length)
    return frame + bytes(length - len(frame))


def mix(src, dst):
    """The known mix; the totals are worked out in test_capture.sh."""
    bcast = b"\xff" * 6
    mc4 = bytes([0x01, 0x00, 0x5e, 0x01, 0x02, 0x03])
    mc6 = bytes([0x33, 0x33, 0xff, 0x00, 0x00, 0x0b])
    mld = bytes([0x33, 0x33, 0x00, 0x00, 0x00, 0x16])
    far = [10, 99, 99, 99]
    frames = []
    # 1: 3 x unicast IPv4 UDP, 100 bytes
    for _ in range(3):
        frames.append(pad(dst + src + b"\x08\x00" + ipv4(17, far, 66), 100))
    # 2: 2 x broadcast ARP request, 60 bytes
    arp = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + src + bytes([10, 99, 99, 1]) + \
        bytes(6) + bytes(far)
    for _ in range(2):
        frames.append(pad(bcast + src + b"\x08\x06" + arp, 60))
    # 3: 2 x multicast IPv4 UDP to 239.1.2.3, 200 bytes
    for _ in range(2):
        frames.append(pad(mc4 + src + b"\x08\x00" + ipv4(17, [239, 1, 2, 3], 166), 200))
    # 4: 2 x unicast IPv6 ICMPv6 echo request, 118 bytes
    for _ in range(2):
        frames.append(pad(dst + src + b"\x86\xdd" + ipv6(58, 0xfd, 64) + b"\x80\x00", 118))
    # 5: 1 x IPv6 neighbour solicitation to a solicited-node group, 86 bytes
    frames.append(pad(mc6 + src + b"\x86\xdd" + ipv6(58, 0xff, 32) + b"\x87\x00", 86))
    # 6: 2 x 802.1Q-tagged IPv4 TCP, 120 bytes
    for _ in range(2):
        frames.append(pad(dst + src + b"\x81\x00\x00\x05\x08\x00" + ipv4(6, far, 82), 120))
    # 7: 1 x 802.1ad + 802.1Q tagged IPv6 UDP, 150 bytes
    frames.append(pad(dst + src + b"\x88\xa8\x00\x07\x81\x00\x00\x05\x86\xdd" +
                      ipv6(17, 0xfd, 92), 150))
    # 8: 2 x unknown ethertype 0x88b5, 64 bytes
    for _ in range(2):
        frames.append(pad(dst + src + b"\x88\xb5" + b"getcounter", 64))
    # 9: 1 x IPv6 hop-by-hop then ICMPv6 (an MLDv2 report), 90 bytes
    hbh = bytes([58, 0, 5, 2, 0, 0, 1, 0])
    frames.append(pad(mld + src + b"\x86\xdd" + ipv6(0, 0xff, 36) + hbh + b"\x8f\x00", 90))
    return frames


def main():
    ifname, src, dst, mode = sys.argv[1], mac(sys.argv[2]), mac(sys.argv[3]), sys.argv[4]
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    if mode == "mix":
        for f in mix(src, dst):
            s.send(f)
    elif mode == "flood":
        n, length = int(sys.argv[5]), int(sys.argv[6])
        f = pad(dst + src + b"\x08\x00" + ipv4(17, [10, 99, 99, 99], length - 34), length)
        for _ in range(n):
            while True:
                try:
                    s.send(f)
                    break
                except BlockingIOError:
                    pass
    else:
        sys.exit("unknown mode " + mode)


if __name__ == "__main__":
    main()
