#!/usr/bin/python3
"""Checks the size of the product's files and functions; standard library only.

Usage: /usr/bin/python3 scripts/check_sizes.py [--root DIR]

Reads every .h and .cc under the product folders (as check_include_cycles.py) and
prints each file over MAX_FILE_LINES lines and each function over MAX_FUNCTION_LINES
(from the line of its name to its closing brace), so that a file stays one concern and
a function can be read whole. A function is a brace block opened at namespace or class
scope after a parameter list (lambdas and blocks inside a function count toward it).
A table that is one long function on purpose (a list of settings) is exempt when the
line before its signature says so: `// check_sizes: a table`.

Exit status: 0 when nothing is over, 1 otherwise.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_include_cycles import project_files  # noqa: E402

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 150
EXEMPT = "// check_sizes: a table"

STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$")
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else)\b")


def code_lines(text):
    """The lines with comments and literals blanked (raw strings are not expected)."""
    out, in_block = [], False
    for line in text.split("\n"):
        if in_block:
            end = line.find("*/")
            if end < 0:
                out.append("")
                continue
            line, in_block = line[end + 2:], False
        line = STRING.sub('""', line)
        line = re.sub(r"/\*.*?\*/", "", line)
        start = line.find("/*")
        if start >= 0:
            line, in_block = line[:start], True
        comment = line.find("//")
        out.append(line if comment < 0 else line[:comment])
    return out


def long_functions(path, text):
    lines = code_lines(text)
    raw = text.split("\n")
    found = []
    stack = []  # per open brace: "scope", "function" or "block"
    header_start = 0  # the first line of the statement being read at scope level
    for number, line in enumerate(lines):
        in_function = any(kind == "function" for kind in stack)
        if line.lstrip().startswith("#"):
            if not stack or stack[-1] == "scope":
                header_start = number + 1
            continue
        for i, ch in enumerate(line):
            if ch == "{":
                if in_function or (stack and stack[-1] != "scope"):
                    stack.append("block")
                    continue
                before = " ".join(lines[header_start:number]) + " " + line[:i]
                if SCOPE.search(before.strip()) or before.strip().endswith("=") or ")" not in before \
                        or CONTROL.match(before):
                    stack.append("scope" if SCOPE.search(before.strip()) or not before.strip().endswith("=") else "block")
                    if stack[-1] == "scope" and not SCOPE.search(before.strip()):
                        stack[-1] = "block"  # an initializer list or the like
                    header_start = number + 1
                    continue
                stack.append("function")
                in_function = True
                start = header_start
                while start < number and not lines[start].strip():
                    start += 1
                found.append([start, None])
            elif ch == "}":
                if not stack:
                    continue
                kind = stack.pop()
                if kind == "function":
                    found[-1][1] = number
                    in_function = False
                if not stack or stack[-1] == "scope":
                    header_start = number + 1
            elif ch == ";" and (not stack or stack[-1] == "scope"):
                header_start = number + 1
        if (not stack or stack[-1] == "scope") and re.match(r"^\s*(public|private|protected)\s*:", line):
            header_start = number + 1
    out = []
    for start, end in found:
        if end is None:
            continue
        length = end - start + 1
        if length > MAX_FUNCTION_LINES and not (start > 0 and raw[start - 1].strip() == EXEMPT):
            out.append((start + 1, length, raw[start].strip()))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    problems = 0
    files = project_files(root)
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        count = text.count("\n")
        if count > MAX_FILE_LINES:
            print(f"{path}: {count} lines (at most {MAX_FILE_LINES}): split it by concern")
            problems += 1
        for line, length, signature in long_functions(path, text):
            print(f"{path}:{line}: a function of {length} lines (at most {MAX_FUNCTION_LINES}): {signature}")
            problems += 1
    print(f"check_sizes: {len(files)} files; {problems} over the limits")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
