"""A PEP 517 build backend for the alea package, in the standard library
only: pip builds the wheel offline, with nothing to fetch (setuptools would
need the `wheel` package, which an offline machine may lack).

The wheel is pure Python: alea/ and its metadata. The C library it wraps is
installed separately (cmake --install) or named by ALEA_LIBRARY.
"""
import base64
import hashlib
import os
import tarfile
import zipfile

NAME = 'alea'
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _version():
    """The version, written once: ALEA_VERSION_STRING in include/alea.h (the
    repository's, beside python/; a source distribution carries a copy)."""
    for path in (os.path.join(HERE, '..', 'include', 'alea.h'),
                 os.path.join(HERE, 'alea.h')):
        if os.path.exists(path):
            for line in open(path):
                if line.startswith('#define ALEA_VERSION_STRING'):
                    return line.split('"')[1]
    raise RuntimeError('alea.h not found: build from the repository')


VERSION = _version()

METADATA = f'''Metadata-Version: 2.1
Name: {NAME}
Version: {VERSION}
License: MIT
Summary: Tabletop dice for Python: rolls with a per-die breakdown and exact distributions
Requires-Python: >=3.8
Description-Content-Type: text/markdown

''' + open(os.path.join(HERE, 'README.md')).read()

WHEEL = '''Wheel-Version: 1.0
Generator: alea-backend
Root-Is-Purelib: true
Tag: py3-none-any
'''


def _package_files():
    for root, _, files in os.walk(os.path.join(HERE, NAME)):
        for f in sorted(files):
            if f.endswith('.py'):
                path = os.path.join(root, f)
                yield path, os.path.relpath(path, HERE)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
    return f'{arcname},sha256={digest},{len(data)}'


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = f'{NAME}-{VERSION}.dist-info'
    name = f'{NAME}-{VERSION}-py3-none-any.whl'
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w', zipfile.ZIP_DEFLATED) as z:
        for path, arcname in _package_files():
            data = open(path, 'rb').read()
            z.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        for fname, text in (('METADATA', METADATA), ('WHEEL', WHEEL)):
            arcname = f'{info}/{fname}'
            data = text.encode()
            z.writestr(arcname, data)
            record.append(_record_line(arcname, data))
        record.append(f'{info}/RECORD,,')
        z.writestr(f'{info}/RECORD', '\n'.join(record) + '\n')
    return name


def build_sdist(sdist_directory, config_settings=None):
    base = f'{NAME}-{VERSION}'
    name = f'{base}.tar.gz'
    with tarfile.open(os.path.join(sdist_directory, name), 'w:gz') as t:
        for rel in ['pyproject.toml', 'README.md', '_build/backend.py']:
            t.add(os.path.join(HERE, rel), f'{base}/{rel}')
        t.add(os.path.join(HERE, '..', 'include', 'alea.h'), f'{base}/alea.h')
        for path, arcname in _package_files():
            t.add(path, f'{base}/{arcname}')
        info = tarfile.TarInfo(f'{base}/PKG-INFO')
        data = METADATA.encode()
        info.size = len(data)
        import io
        t.addfile(info, io.BytesIO(data))
    return name
