#!/usr/bin/env python3
"""Generates python/nscd/_bindings.py, the ctypes declarations of the public
headers (include/nscd/*.h): typedefs, enum constants, numeric macros, callback
types, structs and the prototypes of the functions of the three libraries
(libnscd, libnscd_fclib, libnscd_mpi).

    python3 tools/gen_python_bindings.py            # rewrites python/nscd/_bindings.py
    python3 tools/gen_python_bindings.py --check    # exit 1 when it is out of date
    python3 tools/gen_python_bindings.py --stdout   # print instead of writing

The headers are preprocessed as tests/python/test_cffi_headers.py does for cffi
(preprocessed_headers below, which that test imports): the system includes are
removed (their types are known by name), `cc -E` expands the rest, and the GNU
visibility attribute is stripped. The result is parsed by pycparser (Debian:
python3-pycparser, the parser cffi uses). The line markers of `cc -E` tell
which header each declaration comes from:

  * include/nscd/fclib.h     -> libnscd_fclib  (optional, built with FCLIB)
  * include/nscd/world_mpi.h -> libnscd_mpi    (optional, built with MPI)
  * every other header       -> libnscd        (all reached from nscd/nscd.h)

Mapping of C types: fixed-size integers, size_t, double, float and char to
their ctypes; `char *` to c_char_p, `void *` and a pointer to an opaque handle
(a struct the headers never define) to c_void_p, `handle **` to
POINTER(c_void_p); enums to c_int; a function-pointer typedef to a CFUNCTYPE;
array parameters decay to pointers. A construct the mapping does not know is
an error (the generator never guesses)."""
import argparse
import ast
import operator
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
INCLUDE = os.path.join(ROOT, "include")
OUTPUT = os.path.join(ROOT, "python", "nscd", "_bindings.py")

# Umbrella header -> the library (stem of lib<stem>.so) that exports what it declares.
LIBRARIES = (("nscd.h", "nscd"), ("fclib.h", "nscd_fclib"), ("world_mpi.h", "nscd_mpi"))

# The types of the removed system includes, by name.
SCALARS = {
    "void": None, "char": "ctypes.c_char", "signed char": "ctypes.c_byte",
    "unsigned char": "ctypes.c_ubyte", "short": "ctypes.c_short",
    "unsigned short": "ctypes.c_ushort", "int": "ctypes.c_int", "unsigned int": "ctypes.c_uint",
    "unsigned": "ctypes.c_uint", "long": "ctypes.c_long", "unsigned long": "ctypes.c_ulong",
    "long long": "ctypes.c_longlong", "unsigned long long": "ctypes.c_ulonglong",
    "float": "ctypes.c_float", "double": "ctypes.c_double", "_Bool": "ctypes.c_bool",
    "int8_t": "ctypes.c_int8", "uint8_t": "ctypes.c_uint8", "int16_t": "ctypes.c_int16",
    "uint16_t": "ctypes.c_uint16", "int32_t": "ctypes.c_int32", "uint32_t": "ctypes.c_uint32",
    "int64_t": "ctypes.c_int64", "uint64_t": "ctypes.c_uint64", "size_t": "ctypes.c_size_t",
    "ptrdiff_t": "ctypes.c_ssize_t", "intptr_t": "ctypes.c_ssize_t",
    "uintptr_t": "ctypes.c_size_t",
}
SYSTEM_TYPEDEFS = [name for name in SCALARS if name.endswith("_t")]


def preprocessed_headers(work_dir, umbrella="nscd.h", line_markers=False, include_dir=INCLUDE):
    """The umbrella header include/nscd/<umbrella> as a C compiler sees it,
    without the system includes (whose types cffi and this generator know by
    name) and without GNU attributes. line_markers keeps the `# N "file"`
    lines of `cc -E` (pycparser reads them; cffi's cdef does not)."""
    work = os.path.join(str(work_dir), "nscd")
    os.makedirs(work, exist_ok=True)
    for name in sorted(os.listdir(os.path.join(include_dir, "nscd"))):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(include_dir, "nscd", name), encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r"^\s*#\s*include\s*<[^>]*>\s*$", "", text, flags=re.M)
        with open(os.path.join(work, name), "w", encoding="utf-8") as f:
            f.write(text)
    cc = shutil.which(os.environ.get("CC", "cc")) or "cc"
    command = [cc, "-E"] + ([] if line_markers else ["-P"])
    done = subprocess.run(command + ["-I", str(work_dir), os.path.join(work, umbrella)],
                          capture_output=True, text=True, check=True)
    return re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", "", done.stdout)


def macros(work_dir, umbrella):
    """{name: value} of the NSCD_* object-like macros of the headers whose
    value is a numeric constant expression (include guards and NSCD_API
    excluded)."""
    cc = shutil.which(os.environ.get("CC", "cc")) or "cc"
    done = subprocess.run([cc, "-E", "-dM", "-I", str(work_dir),
                           os.path.join(str(work_dir), "nscd", umbrella)],
                          capture_output=True, text=True, check=True)
    raw = {}
    for line in done.stdout.splitlines():
        match = re.match(r"#define (NSCD_[A-Z0-9_]+) (.+)$", line)
        if match and not match.group(1).endswith("_H"):
            raw[match.group(1)] = match.group(2).strip()
    values = {}

    def evaluate(name, depth=0):
        if name in values or depth > 20:
            return values.get(name)
        text = re.sub(r"\(\s*[a-z_][a-z0-9_]*\s*\)", "", raw[name])  # casts to a typedef
        text = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)
        for other in re.findall(r"\bNSCD_[A-Z0-9_]+\b", text):
            if other not in raw or evaluate(other, depth + 1) is None:
                return None
            text = re.sub(rf"\b{other}\b", repr(values[other]), text)
        try:
            value = _constant(ast.parse(text, mode="eval").body)
        except (SyntaxError, ValueError):
            return None
        values[name] = value
        return value

    for name in sorted(raw):
        evaluate(name)
    return values


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
           ast.BitOr: operator.or_, ast.BitAnd: operator.and_}


def _constant(node):
    """The value of a Python AST of numbers and arithmetic (ValueError otherwise)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_constant(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_constant(node.left), _constant(node.right))
    raise ValueError(ast.dump(node))


class Generator:
    """Walks the pycparser ASTs of the three umbrellas and collects Python lines."""

    def __init__(self, include_dir=INCLUDE):
        from pycparser import c_ast  # noqa: F401  (fails early without pycparser)
        self.include_dir = include_dir
        self.typedefs = {}    # C typedef name -> Python expression
        self.opaque = set()   # struct tags declared but never defined
        self.structs = {}     # struct tag -> Python class name (the C typedef name)
        self.seen = set()     # names already emitted
        self.lines = {"typedefs": [], "enums": [], "callbacks_structs": []}
        self.enums = {}       # C enum name -> {member: value}
        self.constants = {}
        self.prototypes = {stem: {} for _, stem in LIBRARIES}
        self.headers = set()

    # ---------------------------------------------------------------- types
    def ctype(self, node, where, parameter=False):
        """The Python (ctypes) expression of a pycparser type node."""
        from pycparser import c_ast
        if isinstance(node, c_ast.TypeDecl):
            return self.base(node.type, where)
        if isinstance(node, c_ast.ArrayDecl):
            if parameter:
                inner = self.ctype(node.type, where)
                return f"ctypes.POINTER({inner})"
            return f"({self.ctype(node.type, where)} * {self.dimension(node.dim, where)})"
        if isinstance(node, c_ast.PtrDecl):
            target = node.type
            if isinstance(target, c_ast.FuncDecl):  # a field such as void *(*allocate)(...)
                restype, args = self.function_type(target, where)
                return f"ctypes.CFUNCTYPE({', '.join([str(restype)] + args)})"
            if isinstance(target, c_ast.TypeDecl):
                inner = target.type
                if isinstance(inner, c_ast.IdentifierType):
                    name = " ".join(inner.names)
                    if name == "char":
                        return "ctypes.c_char_p"
                    if name == "void":
                        return "ctypes.c_void_p"
                    if name in self.opaque:
                        return "ctypes.c_void_p"
                if isinstance(inner, c_ast.Struct) and inner.name in self.opaque:
                    return "ctypes.c_void_p"
            pointee = self.ctype(target, where)
            if pointee is None:
                return "ctypes.c_void_p"
            return f"ctypes.POINTER({pointee})"
        raise SystemExit(f"{where}: unsupported type node {type(node).__name__}")

    def base(self, node, where):
        from pycparser import c_ast
        if isinstance(node, c_ast.IdentifierType):
            name = " ".join(node.names)
            if name in self.typedefs:
                return self.typedefs[name]
            if name in SCALARS:
                return SCALARS[name]
            raise SystemExit(f"{where}: unknown type {name!r}")
        if isinstance(node, c_ast.Struct):
            if node.name in self.structs:
                return self.structs[node.name]
            raise SystemExit(f"{where}: struct {node.name} used before its definition")
        if isinstance(node, c_ast.Enum):
            return "ctypes.c_int"
        raise SystemExit(f"{where}: unsupported base type {type(node).__name__}")

    def dimension(self, node, where):
        from pycparser import c_ast
        if isinstance(node, c_ast.Constant):
            return int(node.value.rstrip("uUlL"), 0)
        if isinstance(node, c_ast.BinaryOp):
            ops = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.floordiv}
            return ops[node.op](self.dimension(node.left, where),
                                self.dimension(node.right, where))
        if isinstance(node, c_ast.ID) and node.name in self.constants:
            return self.constants[node.name]
        raise SystemExit(f"{where}: unsupported array dimension {node!r}")

    def value(self, node, where):
        from pycparser import c_ast
        if isinstance(node, c_ast.Constant):
            return int(node.value.rstrip("uUlL"), 0)
        if isinstance(node, c_ast.UnaryOp) and node.op == "-":
            return -self.value(node.expr, where)
        if isinstance(node, c_ast.ID) and node.name in self.constants:
            return self.constants[node.name]
        if isinstance(node, c_ast.BinaryOp):
            ops = {"+": operator.add, "-": operator.sub, "*": operator.mul, "|": operator.or_,
                   "<<": operator.lshift}
            return ops[node.op](self.value(node.left, where), self.value(node.right, where))
        raise SystemExit(f"{where}: unsupported enum value {node!r}")

    # ---------------------------------------------------------------- declarations
    def enum(self, node, where):
        if node.values is None:
            return
        name = node.name or f"anonymous enum of {where} (first {node.values.enumerators[0].name})"
        if name in self.enums:
            return
        members = {}
        current = -1
        for item in node.values.enumerators:
            current = current + 1 if item.value is None else self.value(item.value, where)
            members[item.name] = current
            self.constants[item.name] = current
        self.enums[name] = members
        self.lines["enums"].append(f"# enum {name} ({where})")
        for member, number in members.items():
            self.lines["enums"].append(f"{member} = {number}")
        self.lines["enums"].append("")

    def struct(self, node, typedef_name, where):
        tag = node.name or typedef_name
        if node.decls is None:
            if tag not in self.structs:
                self.opaque.add(tag)
            return
        if tag in self.structs:
            return
        self.opaque.discard(tag)
        cls = typedef_name or tag
        fields = []
        for decl in node.decls:
            fields.append((decl.name, self.ctype(decl.type, f"{where}: {cls}.{decl.name}")))
        self.structs[tag] = cls
        out = self.lines["callbacks_structs"]
        out.append("")
        out.append(f"class {cls}(ctypes.Structure):")
        out.append(f'    """struct {tag} ({where})."""')
        out.append("    _fields_ = [")
        for name, ctype in fields:
            out.append(f"        ({name!r}, {ctype}),")
        out.append("    ]")
        out.append("")

    def function_type(self, func, where):
        restype = self.ctype(func.type, where)
        args = []
        if func.args is not None:
            for param in func.args.params:
                if getattr(param, "name", None) is None and _is_void(param):
                    continue
                args.append(self.ctype(param.type, f"{where}({param.name})", parameter=True))
        return restype, args

    def typedef(self, node, where):
        from pycparser import c_ast
        name = node.name
        target = node.type
        if isinstance(target, c_ast.TypeDecl) and isinstance(target.type, c_ast.Struct):
            self.struct(target.type, name, where)
            tag = target.type.name or name
            if tag in self.structs:
                self.typedefs[name] = self.structs[tag]
            else:
                self.opaque.add(name)
            return
        if isinstance(target, c_ast.TypeDecl) and isinstance(target.type, c_ast.Enum):
            self.enum(target.type, where)
            self.typedefs[name] = "ctypes.c_int"
            return
        if isinstance(target, c_ast.PtrDecl) and isinstance(target.type, c_ast.FuncDecl):
            restype, args = self.function_type(target.type, f"{where}: {name}")
            expr = f"ctypes.CFUNCTYPE({restype}, {', '.join(args)})" if args else \
                f"ctypes.CFUNCTYPE({restype})"
            self.typedefs[name] = name
            out = self.lines["callbacks_structs"]
            out.append(f"# {where}")
            out.append(f"{name} = {_wrap(expr, len(name) + 3)}")
            return
        expr = self.ctype(target, f"{where}: {name}")
        self.typedefs[name] = name
        self.lines["typedefs"].append(f"{name} = {expr}  # {where}")

    def declare(self, node, stem, where):
        from pycparser import c_ast
        if isinstance(node, c_ast.Typedef):
            if node.name not in self.seen:
                self.seen.add(node.name)
                self.typedef(node, where)
            return
        if isinstance(node, c_ast.Decl):
            if isinstance(node.type, c_ast.FuncDecl):
                if node.name in self.seen:
                    return
                self.seen.add(node.name)
                restype, args = self.function_type(node.type, f"{where}: {node.name}")
                names = [p.name for p in (node.type.args.params if node.type.args else [])
                         if not (p.name is None and _is_void(p))]
                self.prototypes[stem][node.name] = (restype, args, names, where)
                return
            if isinstance(node.type, c_ast.Enum):
                self.enum(node.type, where)
                return
            if isinstance(node.type, c_ast.Struct):
                self.struct(node.type, None, where)
                return
        raise SystemExit(f"{where}: unsupported declaration {type(node).__name__}")

    def parse(self, work_dir, umbrella, stem):
        import pycparser
        text = preprocessed_headers(work_dir, umbrella, line_markers=True,
                                    include_dir=self.include_dir)
        prelude = "".join(f"typedef int {name};\n" for name in SYSTEM_TYPEDEFS)
        parser = pycparser.CParser()
        tree = parser.parse(prelude + '# 1 "<source>"\n' + text, filename="<prelude>")
        self.constants.update(macros(work_dir, umbrella))
        for node in tree.ext:
            path = node.coord.file if node.coord else ""
            if path == "<prelude>":
                continue
            header = os.path.basename(path)
            if not os.path.normpath(os.path.dirname(path)).endswith(os.path.join("nscd")):
                raise SystemExit(f"{path}: a declaration outside include/nscd")
            self.headers.add(header)
            library = stem if header == umbrella or stem == "nscd" else "nscd"
            self.declare(node, library, f"nscd/{header}")

    # ---------------------------------------------------------------- output
    def render(self):
        headers = sorted(n for n in os.listdir(os.path.join(self.include_dir, "nscd"))
                         if n.endswith(".h"))
        missed = sorted(set(headers) - self.headers - {"export.h", "nscd.h"})
        if missed:
            umbrellas = ", ".join(u for u, _ in LIBRARIES)
            raise SystemExit(f"headers reached by no umbrella ({umbrellas}): {missed}")
        out = [
            '"""ctypes declarations of the nscd public headers (include/nscd/*.h).',
            "",
            "GENERATED by tools/gen_python_bindings.py from the headers: DO NOT EDIT.",
            "After changing a public header, regenerate with",
            "    python3 tools/gen_python_bindings.py",
            "(tests/python/test_generated_bindings.py fails while this file is stale).",
            "The hand-written layer (python/nscd/_library.py and the modules) imports it.",
            '"""',
            "# flake8: noqa",
            "# pylint: skip-file",
            "import ctypes",
            "",
            "# ---------------------------------------------------------------- macros",
        ]
        enum_members = {m for members in self.enums.values() for m in members}
        for name in sorted(self.constants):
            if name not in enum_members:
                out.append(f"{name} = {self.constants[name]!r}")
        out += ["", "# ---------------------------------------------------------------- typedefs"]
        out += self.lines["typedefs"]
        out += ["", "# ---------------------------------------------------------------- enums"]
        out += self.lines["enums"]
        out.append("ENUMS = {")
        for name, members in self.enums.items():
            out.append(f"    {name!r}: {{")
            for member in members:
                out.append(f"        {member!r}: {member},")
            out.append("    },")
        out.append("}")
        out += ["", "# ---------------------------------------------------------------- "
                "callback types and structs"]
        out += self.lines["callbacks_structs"]
        out += ["", "# " + "-" * 64 + " prototypes",
                "# {library stem (lib<stem>.so): {C function name: (restype, [argtypes])}}",
                "PROTOTYPES = {"]
        for _, stem in LIBRARIES:
            out.append(f"    {stem!r}: {{")
            header = None
            for name, (restype, args, names, where) in self.prototypes[stem].items():
                if where != header:
                    header = where
                    out.append(f"        # {where}")
                head = f"        {name!r}: ({restype}, ["
                line = head + ", ".join(args) + "]),"
                if len(line) <= 99:
                    out.append(line)
                else:
                    out.append(head)
                    for arg, arg_name in zip(args, names):
                        out.append(f"            {arg},  # {arg_name}")
                    out.append("        ]),")
            out.append("    },")
        out.append("}")
        out += ["", "# The C name of each struct -> its ctypes class.",
                "STRUCTS = {"]
        for tag, cls in self.structs.items():
            out.append(f"    {cls!r}: {cls},")
        out.append("}")
        return "\n".join(out) + "\n"


def _is_void(param):
    from pycparser import c_ast
    return (isinstance(param, c_ast.Typename) and isinstance(param.type, c_ast.TypeDecl)
            and isinstance(param.type.type, c_ast.IdentifierType)
            and param.type.type.names == ["void"])


def _wrap(expr, indent):
    """expr on one line when it fits 99 columns, else split after its commas."""
    if len(expr) + indent <= 99:
        return expr
    head, _, rest = expr.partition("(")
    parts = [p.strip() for p in _split_top(rest[:-1])]
    pad = " " * (len(head) + 1 + indent)
    lines, line = [], head + "("
    for i, part in enumerate(parts):
        piece = part + (", " if i < len(parts) - 1 else ")")
        if len(line) + len(piece) + (indent if not lines else 0) > 99 and line.strip():
            lines.append(line.rstrip())
            line = pad + piece
        else:
            line += piece
    lines.append(line)
    return "\n".join(lines)


def _split_top(text):
    depth, start, parts = 0, 0, []
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def generate(include_dir=INCLUDE):
    """The text of python/nscd/_bindings.py for the headers of include_dir
    (default: the repository's include/) as they are now."""
    generator = Generator(include_dir)
    with tempfile.TemporaryDirectory(prefix="nscd-bindings-") as work_dir:
        for umbrella, stem in LIBRARIES:
            generator.parse(work_dir, umbrella, stem)
    return generator.render()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the committed file differs from a fresh generation")
    parser.add_argument("--stdout", action="store_true", help="print the generated file")
    parser.add_argument("--output", default=OUTPUT, help="default: python/nscd/_bindings.py")
    args = parser.parse_args(argv)
    text = generate()
    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = None
        if current != text:
            print(f"{args.output} is out of date: run python3 tools/gen_python_bindings.py",
                  file=sys.stderr)
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
