#!/usr/bin/env python3
"""The function-length rule of Tools/ci/check-architecture.sh (docs/DECISIONS.md D26).

No function, initialiser, accessor or closure body in the Swift sources under the given folders is longer than
MAX_BODY_LINES lines (MAX_TEST_BODY_LINES in tests; the lines strictly between its braces). Type bodies (struct, class, enum, extension, protocol,
actor) are not measured; a control-flow block lies inside a function or closure, so it is measured with it.

A brace counter: comments, string literals (plain, raw, multi-line, with interpolations) and regex literals (#/…/#)
are blanked first, so braces inside them count for nothing. Prints each offender as `path:line (N lines)` and exits
1, or exits 0 when there is none.

Usage: check-function-length.py FOLDER...
"""

import os
import re
import sys

# Sources (not tests): 80 lines (issue 34).
MAX_BODY_LINES = 80
# Tests (any `Tests` folder; the conformance package's library is a source like any other): the longest is the key-server endpoint suite's table (194 lines).
MAX_TEST_BODY_LINES = 230


def is_test(path):
    """Whether `path` is a test source (its bodies are held to MAX_TEST_BODY_LINES)."""
    parts = path.replace(os.sep, "/").split("/")
    return "Tests" in parts

TYPE_HEADER = re.compile(
    r"\b(struct|class|enum|extension|protocol|actor)\s+"
    r"(?!(func|var|let|subscript|override|final|private|fileprivate|internal|public|package|open|static|in)\b)"
    r"[A-Za-z_`]"
)


def skip_interpolation(text, index):
    """The index just past the `)` that closes the interpolation whose `(` is at `index`."""
    depth = 0
    while index < len(text):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index + 1
        elif text[index] == '"':
            index = skip_string(text, index)
            continue
        index += 1
    return index


def skip_string(text, index):
    """The index just past the string literal that starts at `index` (at its `#`s or its first quote)."""
    hashes = 0
    while text[index + hashes] == "#":
        hashes += 1
    start = index + hashes
    multiline = text.startswith('"""', start)
    close = ('"""' if multiline else '"') + "#" * hashes
    escape = "\\" + "#" * hashes
    index = start + (3 if multiline else 1)
    while index < len(text):
        if text.startswith(escape, index):
            after = index + len(escape)
            index = skip_interpolation(text, after) if text.startswith("(", after) else after + 1
            continue
        if text.startswith(close, index):
            return index + len(close)
        if text[index] == "\n" and not multiline:
            return index
        index += 1
    return index


SPECIAL = re.compile(r'//|/\*|#*"|#+/')


def blank(text):
    """`text` with comments, strings and regex literals replaced by spaces (newlines kept)."""
    out = []
    index = 0
    while True:
        match = SPECIAL.search(text, index)
        if match is None:
            out.append(text[index:])
            return "".join(out)
        out.append(text[index : match.start()])
        index, token = match.start(), match.group()
        if token == "//":
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
        elif token == "/*":
            end = text.find("*/", index + 2)
            end = len(text) if end < 0 else end + 2
        elif token.endswith('"'):
            end = skip_string(text, index)
        else:
            hashes = len(token) - 1
            end = text.find("/" + "#" * hashes, match.end())
            end = len(text) if end < 0 else end + 1 + hashes
        out.append("".join("\n" if c == "\n" else " " for c in text[index:end]))
        index = end


def long_bodies(path):
    """(first line, body lines) of each measured body in `path` over the limit, or None if its braces do not match."""
    limit = MAX_TEST_BODY_LINES if is_test(path) else MAX_BODY_LINES
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    stack, found, boundary, line = [], [], 0, 1
    for index, character in enumerate(text):
        if character == "\n":
            line += 1
        elif character == "{":
            stack.append((line, bool(TYPE_HEADER.search(text[boundary:index]))))
            boundary = index + 1
        elif character == "}":
            if not stack:
                return None
            start, is_type = stack.pop()
            if not is_type and line - start - 1 > limit:
                found.append((start, line - start - 1))
            boundary = index + 1
        elif character == ";":
            boundary = index + 1
    return found if not stack else None


def main(folders):
    problems = []
    for folder in folders:
        for directory, subdirectories, files in os.walk(folder):
            subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".build", ".git")))
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                found = long_bodies(path)
                if found is None:
                    problems.append(f"{path} (its braces do not match: the counter cannot read it)")
                for start, length in found or []:
                    problems.append(f"{path}:{start} ({length} lines)")
    if problems:
        print(f"architecture: function or closure bodies over {MAX_BODY_LINES} lines ({MAX_TEST_BODY_LINES} in tests):")
        print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
