#!/usr/bin/env python3
"""Adds lockfile entries for DuckDB's binaries of other platforms.

The registry reachable here serves only the linux-x64 binary of @duckdb/node-bindings, so
npm leaves the other platforms' optional packages out of package-lock.json, and `npm ci`
then refuses the lockfile ("Missing: ... from lock file"). Entries that name each
package's os/cpu let `npm ci` skip them on this platform. Run after `npm install`.
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else 'package-lock.json'
lock = json.load(open(path))
packages = lock['packages']
bindings = packages['node_modules/@duckdb/node-bindings']
for name, version in bindings.get('optionalDependencies', {}).items():
    key = f'node_modules/{name}'
    if key in packages:
        continue
    platform = name.rsplit('node-bindings-', 1)[1].split('-')
    entry = {'version': version, 'cpu': [platform[1]], 'license': 'MIT', 'optional': True, 'os': [platform[0]]}
    if platform[0] == 'linux':
        entry['libc'] = ['musl' if len(platform) > 2 else 'glibc']
    packages[key] = entry
lock['packages'] = dict(sorted(packages.items(), key=lambda kv: (kv[0] != '', kv[0])))
with open(path, 'w') as out:
    json.dump(lock, out, indent=2)
    out.write('\n')
