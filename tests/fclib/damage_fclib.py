"""Random damages of FCLIB files read by nscd_fclib_read (docs/hostile_input.md).

usage: damage_fclib.py READ_DAMAGED WORK_DIR COUNT FILE_OR_DIR... [--seed S]
       [--keep DIR]

Each damage is one of: 1-4 random bytes, a run of 1-16 zeroed bytes, 1-8
flipped bits, a truncation, or a run of bytes copied from elsewhere in the
file; half of them land in the first 4 KiB, where HDF5 keeps the superblock
and most object headers. The damaged copies are read by READ_DAMAGED
(tests/fclib/read_damaged.c) in batches of one source file: each read must
end with NSCD_OK or NSCD_ERR_IO (NSCD_ERR_UNSUPPORTED for a global problem),
leave no HDF5 identifier open, print nothing, and the batch's peak memory must stay below
10 times the peak of reading the intact file. A crash (a signal) is
narrowed down to its file, which is kept (--keep) as a reproducer.
Exit 0 when nothing failed."""
import json
import os
import random
import subprocess
import sys


def damage(rng, data):
    d = bytearray(data)
    kind = rng.randrange(5)
    head = min(len(d), 4096)

    def pos():
        return rng.randrange(head) if rng.random() < 0.5 else rng.randrange(len(d))
    if kind == 0:
        for _ in range(rng.randint(1, 4)):
            d[pos()] = rng.randrange(256)
    elif kind == 1:
        start, n = pos(), rng.randint(1, 16)
        d[start:start + n] = bytes(len(d[start:start + n]))
    elif kind == 2:
        for _ in range(rng.randint(1, 8)):
            d[pos()] ^= 1 << rng.randrange(8)
    elif kind == 3:
        del d[rng.randrange(64, len(d)):]
    else:
        n = rng.randint(1, 64)
        src, dst = rng.randrange(len(d) - n), pos()
        d[dst:dst + n] = data[src:src + n]
        del d[len(data):]
    return bytes(d), kind


# HDF5 1.10.8 loses an object-header cache entry when H5Fopen, H5Gopen2 or
# H5Dopen2 meets a damaged object header (H5O_protect's failure path), and
# then prints this at exit; nscd cannot free it (docs/hostile_input.md).
HDF5_LEAK = "HDF5: infinite loop closing library"


def unexpected(stderr):
    """stderr output other than HDF5's own exit message after its leak."""
    lines = stderr.splitlines()
    if lines and lines[0].startswith(HDF5_LEAK):
        lines = lines[2:]  # the message and its list of interfaces
    return any(line.strip() for line in lines)


def run(reader, files):
    proc = subprocess.run([reader] + files, capture_output=True, text=True, timeout=600)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return proc, lines


def main():
    args = sys.argv[1:]
    seed, keep = 20261128, None
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if "--keep" in args:
        i = args.index("--keep")
        keep = args[i + 1]
        del args[i:i + 2]
    reader, work, count = args[0], args[1], int(args[2])
    sources = []
    for item in args[3:]:
        if os.path.isdir(item):
            sources += sorted(os.path.join(item, f) for f in os.listdir(item)
                              if f.endswith(".hdf5"))
        elif os.path.exists(item):
            sources.append(item)
    os.makedirs(work, exist_ok=True)
    rng = random.Random(seed)
    failures, outcomes, worst_ratio, batch, hdf5_leaks = [], {}, 0.0, 25, 0
    per_source = [count // len(sources) + (k < count % len(sources)) for k in range(len(sources))]
    for source, n in zip(sources, per_source):
        data = open(source, "rb").read()
        proc, lines = run(reader, [source])
        assert proc.returncode == 0 and lines[0]["status"] in (0, -18), (source, proc.stdout)
        intact_peak = lines[-1]["peak_rss_kib"]
        name = os.path.splitext(os.path.basename(source))[0]
        for first in range(0, n, batch):
            files = []
            for k in range(first, min(n, first + batch)):
                damaged, kind = damage(rng, data)
                path = os.path.join(work, f"{name}-{k}-kind{kind}.hdf5")
                with open(path, "wb") as f:
                    f.write(damaged)
                files.append(path)
            proc, lines = run(reader, files)
            # a crash, or anything on stderr (HDF5's error stack; its "infinite
            # loop closing library" at exit is counted apart: HDF5_LEAK)
            suspects = files if proc.returncode < 0 or proc.returncode > 1 or \
                unexpected(proc.stderr) else []
            if HDF5_LEAK in proc.stderr:
                hdf5_leaks += sum(HDF5_LEAK in run(reader, [path])[0].stderr for path in files)
            if suspects:  # the batch died: count each file from its own run
                lines = [run(reader, [path])[1] for path in files]
                lines = [single[0] for single in lines if single] + [{}]
            for line in lines[:-1]:
                outcomes[line["status"]] = outcomes.get(line["status"], 0) + 1
                if line["status"] not in (0, -20, -18) or line["open_hdf5_ids"] != 0:
                    suspects.append(line["file"])
            if lines and "peak_rss_kib" in lines[-1]:
                ratio = lines[-1]["peak_rss_kib"] / intact_peak
                worst_ratio = max(worst_ratio, ratio)
                if ratio > 10.0:
                    suspects += files
            for path in dict.fromkeys(suspects):  # alone, to tell which file did it
                p, single = run(reader, [path])
                ratio = single[-1]["peak_rss_kib"] / intact_peak if single and \
                    "peak_rss_kib" in single[-1] else float("inf")
                if p.returncode != 0 or ratio > 10.0 or unexpected(p.stderr):
                    failures.append((path, p.returncode, ratio, p.stdout[-300:], p.stderr[-300:]))
                    if keep:
                        os.makedirs(keep, exist_ok=True)
                        with open(path, "rb") as f, \
                                open(os.path.join(keep, os.path.basename(path)), "wb") as g:
                            g.write(f.read())
            for path in files:
                os.remove(path)
    total = sum(outcomes.values())
    print(f"{total} damaged copies of {len(sources)} files: "
          f"{outcomes.get(0, 0)} read, {outcomes.get(-20, 0)} refused with NSCD_ERR_IO, "
          f"{outcomes.get(-18, 0)} unsupported (global); worst peak memory "
          f"{worst_ratio:.2f} x the intact read; {len(failures)} failures; "
          f"{hdf5_leaks} with HDF5's own leak inside H5Fopen/H5Gopen2/H5Dopen2")
    for f in failures[:20]:
        print("FAILED", f)
    return 1 if failures or total < count else 0


if __name__ == "__main__":
    sys.exit(main())
