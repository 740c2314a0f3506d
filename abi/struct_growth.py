"""Checks the one kind of struct change the ABI policy allows (docs/abi.md).

abi-compliance-checker rates a field appended to a struct "Low" (it passes),
whatever the struct. Our policy is narrower: a public struct may change only
by growing at its end, and only when its first member is
`uint32_t struct_size` (the library then reads and writes no more than the
caller's struct_size bytes), and only when it is never held by value (inside
another struct, as a parameter or a return value), where its size would
shift or change its neighbours. This script compares every struct and union
of the baseline dump with the new dump and fails on any other change of
size or members. Changes it accepts are listed.

usage: struct_growth.py OLD.dump NEW.dump   (abi-dumper dumps)
exit status: 0 when every change is an allowed growth, 1 otherwise."""
import json
import subprocess
import sys

# A dump is Perl (Data::Dumper); perl's core JSON::PP converts it.
_TO_JSON = ('use JSON::PP; use File::Spec; my $d = do(File::Spec->rel2abs($ARGV[0])) '
            'or die "cannot read $ARGV[0]: $@ $!"; print JSON::PP->new->encode($d);')
# Types that are the same object seen through another name.
_TRANSPARENT = ("Typedef", "Const", "Volatile", "Restrict")


def load(path):
    out = subprocess.run(["perl", "-e", _TO_JSON, path], check=True, capture_output=True)
    dump = json.loads(out.stdout)
    return dump["TypeInfo"], dump.get("SymbolInfo", {}), set(dump.get("Headers", {}))


def name_of(types, tid):
    return types.get(tid, {}).get("Name", "?")


def members(types, info):
    """[(name, type name, offset)] in declaration order."""
    memb = info.get("Memb", {})
    return [(m["name"], name_of(types, m["type"]), m.get("offset"))
            for _, m in sorted(memb.items(), key=lambda kv: int(kv[0]))]


def records(types, headers):
    """{name: info} of the structs and unions declared in the public headers
    (the dump also describes internal types that public ones point to, e.g.
    the layout behind an opaque handle: those may change freely)."""
    return {t["Name"]: t for t in types.values()
            if t.get("Type") in ("Struct", "Union") and t.get("Header") in headers}


def by_value_uses(types, symbols, headers, target):
    """Where the record named `target` is held by value: inside another
    record (also as an array element), as a parameter or a return value."""
    def resolves(tid):
        seen = set()
        while tid in types and tid not in seen:
            seen.add(tid)
            t = types[tid]
            if t.get("Name") == target and t.get("Type") in ("Struct", "Union"):
                return True
            if t.get("Type") not in _TRANSPARENT + ("Array",):
                return False
            tid = t.get("BaseType")
        return False

    uses = []
    for t in records(types, headers).values():
        if t.get("Name") != target:
            uses += [f"member {m['name']} of {t['Name']}" for m in t.get("Memb", {}).values()
                     if resolves(m["type"])]
    functions = [(t.get("Name"), t) for t in types.values() if t.get("Type") == "FuncPtr"]
    functions += [(f.get("ShortName"), f) for f in symbols.values()]
    for name, f in functions:
        uses += [f"parameter {p.get('name', '')} of {name}" for p in f.get("Param", {}).values()
                 if resolves(p["type"])]
        if resolves(f.get("Return")):
            uses.append(f"return value of {name}")
    return uses


def growth_problem(old_dump, new_dump, old, new):
    """None when `new` is `old` grown at its end under the policy, else why not.
    A dump is (types, symbols, public headers)."""
    before, after = members(old_dump[0], old), members(new_dump[0], new)
    if old.get("Type") != "Struct" or new.get("Type") != "Struct":
        return "not a struct"
    if not before or before[0][:2] != ("struct_size", "uint32_t"):
        return "its first member is not uint32_t struct_size"
    if after[:len(before)] != before:
        return "a member of the baseline was removed, renamed, retyped or moved"
    if len(after) <= len(before) or int(new["Size"]) < int(old["Size"]):
        return "it changed size without appending a member"
    uses = by_value_uses(*new_dump, new["Name"])
    if uses:
        return "it is held by value: " + ", ".join(uses)
    return None


def main(old_path, new_path):
    old_dump, new_dump = load(old_path), load(new_path)
    old_records = records(old_dump[0], old_dump[2])
    new_records = records(new_dump[0], new_dump[2])
    failed = False
    for name in sorted(old_records):
        old, new = old_records[name], new_records.get(name)
        if new is None:
            continue  # a removed type that matters is abi-compliance-checker's finding
        before, after = members(old_dump[0], old), members(new_dump[0], new)
        if before == after and old.get("Size") == new.get("Size"):
            continue
        why = growth_problem(old_dump, new_dump, old, new)
        if why is None:
            added = ", ".join(m[0] for m in after[len(before):])
            print(f"abi: allowed growth of {name}: {old['Size']} -> {new['Size']} bytes, "
                  f"appended {added}")
        else:
            print(f"FAIL: {name} changed ({old.get('Size')} -> {new.get('Size')} bytes) "
                  f"and this is not an allowed growth: {why}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
