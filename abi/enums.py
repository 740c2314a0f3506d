#!/usr/bin/python3
"""Enum constants of the public headers, and their check against a baseline.

abi-dumper only records the types that exported functions use, and the status
codes, event types, methods, ... are passed as int32_t; so the values of the
public enums are guarded here: every enum constant of include/nscd is listed as
"ENUM NAME VALUE" (parsed with pycparser from the preprocessed headers).

usage: enums.py SOURCE_DIR                      print the listing
       enums.py SOURCE_DIR --check BASELINE     fail if a constant of the
                                                baseline is gone or changed value
"""
import os
import re
import subprocess
import sys
import tempfile

from pycparser import c_ast, c_parser

# The headers' system includes are stripped; these stand in for them.
PRELUDE = """
typedef int int32_t; typedef unsigned int uint32_t; typedef long int64_t;
typedef unsigned long uint64_t; typedef unsigned long size_t;
"""


def preprocess(src):
    include = os.path.join(src, "include", "nscd")
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "nscd"))
        for name in os.listdir(include):
            if name.endswith(".h"):
                with open(os.path.join(include, name), encoding="utf-8") as f:
                    text = re.sub(r"^\s*#\s*include\s*<[^>]*>\s*$", "", f.read(), flags=re.M)
                with open(os.path.join(tmp, "nscd", name), "w", encoding="utf-8") as f:
                    f.write(text)
        umbrella = os.path.join(tmp, "nscd", "nscd.h")
        out = subprocess.run([os.environ.get("CC", "cc"), "-E", "-P", "-I", tmp, umbrella],
                             capture_output=True, text=True, check=True).stdout
    return PRELUDE + re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", out)


def evaluate(node, known):
    if isinstance(node, c_ast.Constant):
        return int(node.value.rstrip("uUlL"), 0)
    if isinstance(node, c_ast.UnaryOp) and node.op in "-+~":
        value = evaluate(node.expr, known)
        return {"-": -value, "+": value, "~": ~value}[node.op]
    if isinstance(node, c_ast.BinaryOp):
        a, b = evaluate(node.left, known), evaluate(node.right, known)
        ops = {"+": a + b, "-": a - b, "*": a * b, "|": a | b, "&": a & b}
        if node.op == "<<":
            return a << b
        return ops[node.op]
    if isinstance(node, c_ast.ID) and node.name in known:
        return known[node.name]
    raise ValueError(f"cannot evaluate enum value {node}")


class EnumVisitor(c_ast.NodeVisitor):
    def __init__(self):
        self.rows = []
        self.known = {}

    def visit_Enum(self, node):
        if node.values is None:
            return
        value = -1
        for item in node.values.enumerators:
            value = evaluate(item.value, self.known) if item.value is not None else value + 1
            self.known[item.name] = value
            self.rows.append((node.name or "(anonymous)", item.name, value))


def listing(src):
    ast = c_parser.CParser().parse(preprocess(src), filename="<nscd headers>")
    visitor = EnumVisitor()
    visitor.visit(ast)
    return visitor.rows


def main(argv):
    src = argv[1]
    rows = listing(src)
    if len(argv) == 2:
        for enum, name, value in rows:
            print(f"{enum} {name} {value}")
        return 0
    if len(argv) != 4 or argv[2] != "--check":
        print(__doc__, file=sys.stderr)
        return 2
    current = {name: (enum, value) for enum, name, value in rows}
    problems = []
    with open(argv[3], encoding="utf-8") as f:
        baseline = [line.split() for line in f if line.strip() and not line.startswith("#")]
    for enum, name, value in baseline:
        if name not in current:
            problems.append(f"  removed enum constant {name} (= {value}, enum {enum})")
        elif current[name][1] != int(value):
            problems.append(f"  {name} (enum {enum}) changed value: {value} -> {current[name][1]}")
    if problems:
        print("FAIL: public enum constants changed:", file=sys.stderr)
        print("\n".join(problems), file=sys.stderr)
        return 1
    added = len(current) - len(baseline)
    print(f"abi: {len(baseline)} enum constants of the baseline unchanged"
          + (f", {added} added" if added > 0 else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
