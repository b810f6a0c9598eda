#!/usr/bin/env python3
"""check_unity_names.py BUILD_DIR: names at a file's scope that two files of one unity target define.

A unity build (CMAKE_UNITY_BUILD) compiles a target's files several to a translation unit, so a
helper in one file's anonymous namespace is visible in the next. A second definition with the same
signature fails to compile; one with another signature compiles, and overload resolution may pick
the neighbour's (a call lm("gpt") took another file's lm(bool) over its own lm(const std::string&)).
The batches depend on which files a preset builds (fuzz builds a few of the tests), so this
checks whole targets: it lists, for every unity target of BUILD_DIR, each name defined at column 0
inside an anonymous namespace (`namespace {` ... `}  // namespace`) or as `static` in two or more
of its files, unless every definition is the same line (one type alias, say). Exit status 1 if it
lists any."""
import collections
import pathlib
import re
import sys

FUNCTION = re.compile(r'^(?:template <.*> )?(?:static |inline |constexpr |const )*[\w:<>,*& ]+?[ *&](\w+)\s*\(')
VARIABLE = re.compile(r'^(?:static |constexpr |const |inline )*[\w:<>,*& ]+?\b(\w+)\s*(?:=|\{|;|\[)')
TYPE = re.compile(r'^(?:struct|class|enum class|enum|union) (\w+)')
ALIAS = re.compile(r'^using (\w+) =')


def file_scope_names(path):
    """{name: definition line} of what `path` defines in its anonymous namespaces or as static."""
    names, anonymous = {}, False
    for line in path.read_text(errors='replace').splitlines():
        if line.startswith('namespace {'):
            anonymous = True
            continue
        if line.startswith('}  // namespace') and anonymous:
            anonymous = False
            continue
        if not line or line[0] in ' #/}' or line.startswith(('TEST_CASE', 'namespace', 'using namespace')):
            continue
        if not anonymous and not line.startswith('static '):
            continue
        for pattern in (TYPE, ALIAS, FUNCTION, VARIABLE):
            match = pattern.match(line)
            if match:
                names.setdefault(match.group(1), line.strip())
                break
    return names


def main():
    build = pathlib.Path(sys.argv[1])
    live = set(re.findall(r'(\S+/Unity/unity_\w+\.cxx)', (build / 'build.ninja').read_text()))
    targets = collections.defaultdict(list)  # target directory -> its batched files
    for batch in sorted(build.rglob('unity_*.cxx')):
        if str(batch) in live or str(batch.relative_to(build)) in live:
            targets[batch.parent.parent.relative_to(build)] += re.findall(r'#include "([^"]+)"', batch.read_text())
    clashes = 0
    for target, sources in sorted(targets.items()):
        definitions = collections.defaultdict(dict)
        for source in sources:
            path = pathlib.Path(source)
            if path.exists():
                for name, line in file_scope_names(path).items():
                    definitions[name][source] = line
        for name, where in sorted(definitions.items()):
            if len(where) > 1 and len(set(where.values())) > 1:
                clashes += 1
                print(f'{target}: {name} is defined in ' + ', '.join(sorted(where)))
    print(f'{len(targets)} unity targets, {clashes} names defined by two of their files')
    return 1 if clashes else 0


if __name__ == '__main__':
    sys.exit(main())
