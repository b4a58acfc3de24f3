#!/usr/bin/python3
# Prints every ICMPv6 Router Advertisement received in this network namespace as one JSON line: when
# (epoch ms), router lifetime, flags, prefix information options, RDNSS, DNSSL and MTU.
# Usage: ra-sniff.py [seconds]   (the test stops it; the timeout is a safety net)
import json
import socket
import struct
import sys
import time

sock = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
sock.settimeout(float(sys.argv[1]) if len(sys.argv) > 1 else 600)
ntop = lambda b: socket.inet_ntop(socket.AF_INET6, b)
try:
    while True:
        data, addr = sock.recvfrom(4096)
        if len(data) < 16 or data[0] != 134:
            continue
        ra = {"at": int(time.time() * 1000), "from": addr[0], "flags": data[5], "routerLifetime": struct.unpack("!H", data[6:8])[0], "pio": [], "rdnss": [], "dnssl": []}
        i = 16
        while i + 2 <= len(data):
            kind, size = data[i], data[i + 1] * 8
            if size == 0:
                break
            opt = data[i:i + size]
            if kind == 3:
                ra["pio"].append({"prefix": f"{ntop(opt[16:32])}/{opt[2]}", "flags": opt[3], "valid": struct.unpack("!I", opt[4:8])[0], "preferred": struct.unpack("!I", opt[8:12])[0]})
            elif kind == 25:
                ra["rdnss"].append({"lifetime": struct.unpack("!I", opt[4:8])[0], "servers": [ntop(opt[k:k + 16]) for k in range(8, size, 16)]})
            elif kind == 31:
                ra["dnssl"].append({"lifetime": struct.unpack("!I", opt[4:8])[0]})
            elif kind == 5:
                ra["mtu"] = struct.unpack("!I", opt[4:8])[0]
            i += size
        print(json.dumps(ra), flush=True)
except socket.timeout:
    pass
