#!/usr/bin/env python3
"""ktap.py: read KTAP version 1 (Linux's Documentation/dev-tools/ktap.rst),
as the kernel's self-tests and the test runners print it.

  ktap.py check [--expect N] [--expect-failed N] [FILE...]
      Every KTAP document in the files (a document starts at a
      "KTAP version 1" line in column 0; a serial log may hold several,
      with boot messages around them) must be well formed: results
      numbered 1, 2, ... at each level, as many as the plan says,
      subtests indented two spaces a level and opened by their own
      version line, and a parent that is "ok" has no failed subtest.
      Unknown lines (kernel messages) are allowed anywhere, as the
      spec allows them. --expect / --expect-failed: how many top-level
      results there must be in all, and how many of them "not ok".
      Prints one summary line; exit status 0 when all holds, else 1.
  ktap.py junit [--name SUITE] [FILE...]
      The same documents as JUnit XML on stdout: a top-level test with
      subtests becomes a <testsuite> of them, top-level tests without
      subtests go into one <testsuite> named SUITE (default "ktap").
      Diagnostic lines before a result are its <system-out>, and a
      failure's message.
"""
import re
import sys
import xml.etree.ElementTree as ET

VERSION = re.compile(r'^( *)(KTAP version 1|TAP version 1[34])$')
PLAN = re.compile(r'^( *)1\.\.([0-9]+)$')
RESULT = re.compile(r'^( *)(ok|not ok) ([0-9]+)(?: ([^#]*?))? *(?:# *(.*))?$')
DIAG = re.compile(r'^( *)# ?(.*)$')
DIRECTIVES = ('SKIP', 'TODO', 'XFAIL', 'TIMEOUT', 'ERROR')


class KtapError(Exception):
    pass


class Test:
    """One result line and what came with it."""

    def __init__(self, ok, number, name, directive, reason, log):
        self.ok = ok
        self.number = number
        self.name = name
        self.directive = directive  # SKIP, TODO, ... or None
        self.reason = reason        # the text after the directive
        self.log = log              # diagnostic and unknown lines before it
        self.subtests = []

    def failed(self):
        return not self.ok and self.directive not in ('SKIP', 'TODO', 'XFAIL')


def classify(line):
    """(kind, indent, match) of one line: version, plan, result, diag or
    unknown."""
    for kind, pattern in (('version', VERSION), ('plan', PLAN),
                          ('result', RESULT), ('diag', DIAG)):
        m = pattern.match(line)
        if m:
            return kind, len(m.group(1)), m
    return 'unknown', None, None


def make_result(m, log):
    rest = (m.group(5) or '').strip()
    word = rest.split(' ', 1)[0].upper()
    directive = word if word in DIRECTIVES else None
    reason = rest.split(' ', 1)[1] if directive and ' ' in rest else ('' if directive else rest)
    return Test(m.group(2) == 'ok', int(m.group(3)), (m.group(4) or '').strip(),
                directive, reason, log)


class Parser:
    def __init__(self, lines, where):
        self.lines = lines
        self.where = where
        self.i = 0

    def fail(self, what):
        raise KtapError('%s:%d: %s' % (self.where, self.i + 1, what))

    def document(self, indent):
        """Parse from a version line at indent to the end of its level;
        the list of its results."""
        self.i += 1
        plan = None
        results = []
        log = []
        pending_subtests = None
        while self.i < len(self.lines):
            line = self.lines[self.i]
            kind, at, m = classify(line)
            if kind == 'version' and at == indent + 2:
                if pending_subtests is not None:
                    self.fail('a second subtest before its parent\'s result')
                pending_subtests = self.document(indent + 2)
                continue
            if kind in ('version', 'plan', 'result') and at < indent:
                break                              # the parent's line
            if kind == 'version' and at == indent:
                break                              # the next document
            if kind == 'plan' and at == indent:
                if plan is not None or results:
                    self.fail('a plan after results or a second plan')
                plan = int(m.group(2))
            elif kind == 'result' and at == indent:
                test = make_result(m, log)
                log = []
                if test.number != len(results) + 1:
                    self.fail('result number %d, expected %d' % (test.number, len(results) + 1))
                if plan is not None and test.number > plan:
                    self.fail('result %d beyond the plan 1..%d' % (test.number, plan))
                test.subtests = pending_subtests or []
                pending_subtests = None
                if test.ok and not test.directive and any(s.failed() for s in test.subtests):
                    self.fail('"%s" is ok but a subtest failed' % test.name)
                results.append(test)
            elif kind in ('version', 'plan', 'result'):
                self.fail('%s line indented %d, expected %d' % (kind, at, indent))
            else:
                log.append(m.group(2) if kind == 'diag' else line)
            self.i += 1
        if pending_subtests is not None:
            self.fail('subtests with no result line for their parent')
        if plan is not None and plan != len(results):
            self.fail('the plan says 1..%d, %d results' % (plan, len(results)))
        return results

    def documents(self):
        docs = []
        while self.i < len(self.lines):
            kind, at, _ = classify(self.lines[self.i])
            if kind == 'version' and at == 0:
                docs.append(self.document(0))
            else:
                self.i += 1
        return docs


def read(paths):
    """[(path, [document, ...])] of the files (stdin for none or '-')."""
    out = []
    for path in paths or ['-']:
        f = sys.stdin if path == '-' else open(path, encoding='utf-8', errors='replace')
        lines = [l.rstrip('\r\n') for l in f]
        out.append((path, Parser(lines, path).documents()))
    return out


def check(args):
    expect = expect_failed = None
    while args and args[0].startswith('--'):
        if args[0] == '--expect' and len(args) > 1:
            expect = int(args[1])
        elif args[0] == '--expect-failed' and len(args) > 1:
            expect_failed = int(args[1])
        else:
            return usage()
        args = args[2:]
    try:
        files = read(args)
    except KtapError as e:
        print('ktap: ' + str(e))
        return 1
    tops = [t for _, docs in files for doc in docs for t in doc]
    ndocs = sum(len(docs) for _, docs in files)
    failed = sum(t.failed() for t in tops)
    skipped = sum(t.directive == 'SKIP' for t in tops)
    print('ktap: %d document(s), %d result(s): %d ok, %d not ok, %d skipped' %
          (ndocs, len(tops), len(tops) - failed, failed, skipped))
    if ndocs == 0:
        print('ktap: no "KTAP version 1" line')
        return 1
    if expect is not None and len(tops) != expect:
        print('ktap: %d results, expected %d' % (len(tops), expect))
        return 1
    if expect_failed is not None and failed != expect_failed:
        print('ktap: %d failed, expected %d' % (failed, expect_failed))
        return 1
    return 0


def clean(text):
    """Text XML 1.0 can hold (no control characters but tab and newline)."""
    return re.sub(r'[\x00-\x08\x0b\x0c\x0e-\x1f]', '?', text)


def testcase(parent, suite_name, test):
    case = ET.SubElement(parent, 'testcase', classname=clean(suite_name),
                         name=clean(test.name or 'test %d' % test.number))
    log = '\n'.join(test.log)
    if test.directive == 'SKIP':
        ET.SubElement(case, 'skipped', message=clean(test.reason))
    elif test.failed():
        fail = ET.SubElement(case, 'failure', message=clean(test.reason or 'not ok'))
        fail.text = clean(log)
    if log:
        ET.SubElement(case, 'system-out').text = clean(log)


def testsuite(root, name, tests):
    suite = ET.SubElement(root, 'testsuite', name=clean(name), tests=str(len(tests)),
                          failures=str(sum(t.failed() for t in tests)),
                          skipped=str(sum(t.directive == 'SKIP' for t in tests)),
                          errors='0')
    for t in tests:
        testcase(suite, name, t)
    return suite


def junit(args):
    name = 'ktap'
    if len(args) > 1 and args[0] == '--name':
        name, args = args[1], args[2:]
    try:
        files = read(args)
    except KtapError as e:
        print('ktap: ' + str(e), file=sys.stderr)
        return 1
    root = ET.Element('testsuites', name=clean(name))
    leaves = []
    for _, docs in files:
        for doc in docs:
            for t in doc:
                if t.subtests:
                    testsuite(root, t.name, t.subtests)
                else:
                    leaves.append(t)
    if leaves or len(root) == 0:
        testsuite(root, name, leaves)
    suites = list(root)
    for attr in ('tests', 'failures', 'skipped'):
        root.set(attr, str(sum(int(s.get(attr)) for s in suites)))
    sys.stdout.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    sys.stdout.write(ET.tostring(root, encoding='unicode') + '\n')
    return 0


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main(argv):
    if len(argv) > 1 and argv[1] == 'check':
        return check(argv[2:])
    if len(argv) > 1 and argv[1] == 'junit':
        return junit(argv[2:])
    return usage()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
