#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the rule identifiers of Documentation/metaroce/protocol.rst.

Every normative rule of the wire specification carries an identifier
[AREA-N]: AREA is a short upper-case name of the rule's area, N counts
from 1 in document order within the area.

  spec-rules.py [--count] [FILE]

prints one line per identifier, ID<TAB>section<TAB>text (the first 100
characters of the rule's sentence); --count prints the number of rules
per area and the total instead.  Exits 1 if an identifier appears twice
or an area's numbers do not run 1, 2, 3, ... in document order.
"""

import argparse
import os
import re
import sys

RULE_RE = re.compile(r'\[([A-Z][A-Z0-9]*)-([0-9]+)\]')
UNDERLINE_RE = re.compile(r'^([=\-~^"#*+`:.\'_])\1{2,}\s*$')
TABLE_BORDER_RE = re.compile(r'^\s*[+=|]')
TEXT_LEN = 100


def default_path():
    here = os.path.dirname(os.path.realpath(__file__))
    return os.path.join(here, '..', 'Documentation', 'metaroce',
                        'protocol.rst')


def rule_text(lines, i, col):
    """The rule's sentence: from the identifier to the paragraph's end."""
    parts = [lines[i][col:].strip()]
    j = i + 1
    while j < len(lines) and len(' '.join(parts)) < 4 * TEXT_LEN:
        s = lines[j].strip()
        if not s or TABLE_BORDER_RE.match(lines[j]):
            break
        if RULE_RE.search(s) and RULE_RE.search(s).start() == 0:
            break
        if re.match(r'^(\* |[0-9]+\. )', s):
            break
        parts.append(s)
        j += 1
    text = ' '.join(parts)
    text = RULE_RE.sub('', text, count=1).strip()
    nxt = RULE_RE.search(text)
    if nxt:
        text = text[:nxt.start()].rstrip()
    text = re.sub(r'\s+', ' ', text)
    if len(text) > TEXT_LEN:
        text = text[:TEXT_LEN - 3].rstrip() + '...'
    return text


def scan(path):
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    rules = []
    section = ''
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ''
        if (line.strip() and not UNDERLINE_RE.match(line)
                and UNDERLINE_RE.match(nxt)
                and len(nxt.rstrip()) >= len(line.rstrip())
                and not TABLE_BORDER_RE.match(line)):
            section = line.strip()
            continue
        for m in RULE_RE.finditer(line):
            rules.append((m.group(1), int(m.group(2)), section,
                          rule_text(lines, i, m.start()), i + 1))
    return rules


def check(rules, path):
    errors = []
    seen = {}
    expect = {}
    for area, num, _, _, lineno in rules:
        ident = '%s-%d' % (area, num)
        if ident in seen:
            errors.append('%s:%d: [%s] duplicates line %d'
                          % (path, lineno, ident, seen[ident]))
            continue
        seen[ident] = lineno
        want = expect.get(area, 1)
        if num != want:
            errors.append('%s:%d: [%s] out of sequence, expected [%s-%d]'
                          % (path, lineno, ident, area, want))
        expect[area] = max(want, num + 1)
    return errors


def main():
    ap = argparse.ArgumentParser(
        description='List the rule identifiers of the metaroce wire spec.')
    ap.add_argument('--count', action='store_true',
                    help='print the number of rules per area and the total')
    ap.add_argument('file', nargs='?', default=default_path(),
                    help='the spec (default: Documentation/metaroce/protocol.rst)')
    args = ap.parse_args()
    try:
        rules = scan(args.file)
    except OSError as e:
        print('spec-rules.py: %s' % e, file=sys.stderr)
        return 2
    if args.count:
        counts = {}
        for area, _, _, _, _ in rules:
            counts[area] = counts.get(area, 0) + 1
        for area, n in counts.items():
            print('%s\t%d' % (area, n))
        print('total\t%d' % len(rules))
    else:
        for area, num, section, text, _ in rules:
            print('%s-%d\t%s\t%s' % (area, num, section, text))
    errors = check(rules, args.file)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
