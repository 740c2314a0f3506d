"""The committed damaged FCLIB files (tests/data/fclib_damaged) read by read_damaged:
each refused with NSCD_ERR_IO, nothing left open, no crash, and peak memory
below 10 times that of reading the intact sample.

usage: check_reproducers.py READ_DAMAGED SAMPLE.hdf5 DIR"""
import json
import os
import subprocess
import sys

reader, sample, folder = sys.argv[1:4]


def read(path):
    run = subprocess.run([reader, path], capture_output=True, text=True, timeout=120)
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return run.returncode, lines


rc, lines = read(sample)
assert rc == 0 and lines[0]["status"] == 0, lines
intact = lines[-1]["peak_rss_kib"]
files = sorted(f for f in os.listdir(folder) if f.endswith(".hdf5"))
assert files
for name in files:
    rc, lines = read(os.path.join(folder, name))
    assert rc == 0, (name, rc, lines)  # a signal is negative
    assert lines[0]["status"] == -20 and lines[0]["open_hdf5_ids"] == 0, (name, lines)
    ratio = lines[-1]["peak_rss_kib"] / intact
    assert ratio < 10.0, (name, ratio)
    print(f"{name}: refused ({lines[0]['message']}), peak memory {ratio:.2f} x the intact read")
