#!/usr/bin/env python3
"""lava.py: baremon's LAVA files (docs/lava.md).

  lava.py device DICT           the device configuration (YAML, what
                                lava-run --device reads) of a device
                                dictionary in tools/lava/devices/
  lava.py job SESSION [options] a job (YAML) that boots baremon and runs
                                SESSION's commands, each a test case
      --device-type T (baremon)  --image URL (file://build/baremon.img)
      --board (a flasher deploy and a minimal boot, not QEMU)
      --boot-minutes N (20)  --command-minutes N (10)  --name NAME
  lava.py results LOG [--expect SESSION]
                                the results of a lava-run log (its YAML
                                lines on stdout): one line per test case,
                                "DEFINITION CASE RESULT [MEASUREMENT UNITS]";
                                with --expect, exit 1 unless the job
                                passed every case of SESSION with a status
                                measurement and one measurement at least

A session file has one baremon shell command a line; '#' starts a comment.
A command's test case is named NN-PROGRAM (01-bench), or NAME when the
line is "NAME: COMMAND".
"""
import json
import os
import re
import sys

import jinja2
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def render(template, dirs, **variables):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(dirs),
                             undefined=jinja2.Undefined, trim_blocks=False)
    return env.get_template(template).render(**variables)


def device(args):
    if len(args) != 1:
        return usage()
    name = os.path.basename(args[0])
    text = render(name, [os.path.dirname(os.path.abspath(args[0])),
                         os.path.join(HERE, 'device-types')])
    yaml.safe_load(text)   # a template mistake shows here, not in lava-run
    sys.stdout.write(text)
    return 0


def read_session(path):
    """[{name, command}] of a session file."""
    cases = []
    for line in open(path, encoding='utf-8'):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        m = re.match(r'^([a-z0-9][a-z0-9-]*): (.+)$', line)
        if m:
            name, command = m.group(1), m.group(2)
        else:
            name = '%02d-%s' % (len(cases) + 1, os.path.basename(line.split()[0]))
            command = line
        cases.append({'name': re.sub(r'[^a-z0-9-]', '-', name.lower()), 'command': command})
    return cases


def job(args):
    if not args:
        return usage()
    session, args = args[0], args[1:]
    opts = {'device_type': 'baremon', 'image_url': 'file://' + os.path.join(TOP, 'build/baremon.img'),
            'qemu': True, 'boot_minutes': 20, 'command_minutes': 10,
            'job_name': 'baremon session ' + os.path.basename(session)}
    names = {'--device-type': 'device_type', '--image': 'image_url', '--name': 'job_name',
             '--boot-minutes': 'boot_minutes', '--command-minutes': 'command_minutes'}
    while args:
        if args[0] == '--board':
            opts['qemu'] = False
            args = args[1:]
        elif args[0] in names and len(args) > 1:
            value = args[1]
            opts[names[args[0]]] = int(value) if args[0].endswith('minutes') else value
            args = args[2:]
        else:
            return usage()
    cases = read_session(session)
    if not cases:
        print('lava.py: %s has no command' % session, file=sys.stderr)
        return 1
    opts['job_minutes'] = opts['boot_minutes'] + 5 + len(cases) * opts['command_minutes']
    text = render('session.yaml.jinja2', [os.path.join(HERE, 'jobs')], cases=cases, **opts)
    yaml.safe_load(text)
    sys.stdout.write(text)
    return 0


def lava_results(path):
    """The results records of a lava-run log."""
    out = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            if '"lvl": "results"' not in line and "lvl: results" not in line:
                continue
            try:
                entry = yaml.safe_load(line)
            except yaml.YAMLError:
                continue
            if isinstance(entry, list):
                entry = entry[0]
            if isinstance(entry, dict) and entry.get('lvl') == 'results':
                out.append(entry['msg'])
    return out


def results(args):
    if not args:
        return usage()
    records = lava_results(args[0])
    for r in records:
        line = '%s %s %s' % (r.get('definition'), r.get('case'), r.get('result'))
        if r.get('measurement') is not None:
            line += ' %s %s' % (r['measurement'], r.get('units', ''))
        print(line)
    if len(args) == 3 and args[1] == '--expect':
        return expect(records, read_session(args[2]))
    return 0


def expect(records, cases):
    """Every case: the interactive command passed, its monitor saw the
    status case pass with a measurement and one other measurement."""
    bad = []
    job = [r for r in records if r.get('definition') == 'lava' and r.get('case') == 'job']
    if not job or job[-1].get('result') != 'pass':
        bad.append('the job did not pass')
    for case in cases:
        name = case['name']
        ident = re.sub(r'\W+', '_', name)
        mine = [r for r in records if r.get('definition') in (name, '0_' + name)
                or str(r.get('definition', '')).endswith('_' + name)]
        typed = [r for r in mine if r.get('case') == name and r.get('result') == 'pass']
        status = [r for r in mine if r.get('case') == ident and r.get('result') == 'pass'
                  and r.get('units') == 'status']
        measured = [r for r in mine if r.get('case', '').startswith(ident + '_')
                    and r.get('measurement') is not None and r.get('units')]
        if not typed:
            bad.append('%s: the interactive command did not pass' % name)
        if not status:
            bad.append('%s: no passing status case' % name)
        if not measured:
            bad.append('%s: no measurement' % name)
    for b in bad:
        print('lava.py: ' + b)
    print('lava.py: %d test cases, %d of the session\'s %d commands complete' %
          (len(records), len(cases) - len({b.split(':')[0] for b in bad if ':' in b}), len(cases)))
    return 1 if bad else 0


def usage():
    print(__doc__.strip(), file=sys.stderr)
    return 2


def main(argv):
    commands = {'device': device, 'job': job, 'results': results}
    if len(argv) < 2 or argv[1] not in commands:
        return usage()
    return commands[argv[1]](argv[2:])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
