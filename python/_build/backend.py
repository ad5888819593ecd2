"""A PEP 517 build backend for the alea package, in the standard library
only: pip builds the wheel offline, with nothing to fetch (setuptools would
need the `wheel` package, which an offline machine may lack).

The wheel holds alea/ and the C library it wraps, built here with CMake
from the C sources: alea/libalea.so.0 and, when GMP is there to build it,
the exact-fractions module alea/alea/alea-exact.so, where libalea.so looks
for it (its run path is $ORIGIN/alea). `import alea` then needs no separate
C install and no environment variable. The wheel is for this machine: its
tag is the platform's, and the module needs the GMP and MPFR it was built against
(without it, the library refuses exact mode with a message and computes in
doubles).

Where the C sources are: in a source distribution, its folder c/ (which
build_sdist fills: CMakeLists.txt, cmake/, include/, src/, cli/, bench/ and
LICENSE, what CMake's configuration reads); else the repository, the
folder above python/ (`pip install python/`).

Building needs cmake and a C compiler (Debian: cmake build-essential) and,
for exact fractions, libgmp-dev and libmpfr-dev. CMAKE_BUILD_PARALLEL_LEVEL sets the
number of compiler jobs (default: one per processor).
"""
import base64
import hashlib
import io
import os
import shutil
import subprocess
import sysconfig
import tarfile
import tempfile
import zipfile

NAME = 'alea'
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What CMake's configuration of the C library reads: a source distribution
# carries these, under c/.
C_TREE = ['CMakeLists.txt', 'LICENSE', 'cmake', 'include', 'src', 'cli', 'bench']


def _c_source():
    """The C sources: the source distribution's c/, else the repository."""
    for path in (os.path.join(HERE, 'c'), os.path.dirname(HERE)):
        if os.path.exists(os.path.join(path, 'CMakeLists.txt')) and \
                os.path.exists(os.path.join(path, 'include', 'alea.h')):
            return path
    raise RuntimeError('alea: the C sources were not found: build from the repository '
                       '(pip install python/) or from a source distribution, which holds '
                       'them in c/')


def _version():
    """The version, written once: ALEA_VERSION_STRING in include/alea.h."""
    for line in open(os.path.join(_c_source(), 'include', 'alea.h')):
        if line.startswith('#define ALEA_VERSION_STRING'):
            return line.split('"')[1]
    raise RuntimeError('alea: no ALEA_VERSION_STRING in include/alea.h')


VERSION = _version()

METADATA = f'''Metadata-Version: 2.1
Name: {NAME}
Version: {VERSION}
License: MIT
Summary: Tabletop dice for Python: rolls with a per-die breakdown and exact distributions
Requires-Python: >=3.8
Description-Content-Type: text/markdown

''' + open(os.path.join(HERE, 'README.md')).read()


def _platform_tag():
    return sysconfig.get_platform().replace('-', '_').replace('.', '_')


def _package_files():
    for root, _, files in os.walk(os.path.join(HERE, NAME)):
        for f in sorted(files):
            if f.endswith('.py'):
                path = os.path.join(root, f)
                yield path, os.path.relpath(path, HERE)


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
    return f'{arcname},sha256={digest},{len(data)}'


def _run(cmd, log):
    """Runs a build step, its output kept in log; a failure raises with the
    output's end and the step named."""
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except FileNotFoundError:
        raise RuntimeError(f'alea: building the C library needs {cmd[0]} (Debian: cmake '
                           'build-essential, and libgmp-dev libmpfr-dev for exact fractions)') from None
    log.append(r.stdout)
    if r.returncode != 0:
        tail = '\n'.join(r.stdout.splitlines()[-40:])
        raise RuntimeError(f'alea: {" ".join(cmd[:3])} ... failed ({r.returncode}):\n{tail}')


def _build_library(build_dir):
    """Builds libalea.so.0 (and alea-exact.so when GMP is there) in
    build_dir; returns [(path, name in the wheel)]. The library gets its
    installed run path ($ORIGIN/alea) in the build tree already, so that the
    copies in the wheel find the module beside them, and no path of this
    build is left in them."""
    log = []
    _run(['cmake', '-S', _c_source(), '-B', build_dir, '-DCMAKE_BUILD_TYPE=Release',
          '-DALEA_TESTS=OFF', '-DALEA_INSTALL=OFF', '-DALEA_CLI=OFF', '-DALEA_HTTP=OFF',
          '-DALEA_EDITLINE=OFF',
          '-DCMAKE_BUILD_WITH_INSTALL_RPATH=ON'], log)
    jobs = [] if os.environ.get('CMAKE_BUILD_PARALLEL_LEVEL') else \
        ['--parallel', str(os.cpu_count() or 1)]
    _run(['cmake', '--build', build_dir, '--target', 'alea_shared', *jobs], log)
    lib = os.path.join(build_dir, f'libalea.so.{VERSION}')
    if not os.path.exists(lib):
        raise RuntimeError(f'alea: the build made no {lib}')
    files = [(lib, f'{NAME}/libalea.so.0')]
    module = os.path.join(build_dir, 'alea-exact.so')
    if os.path.exists(module):  # built when GMP was found
        files.append((module, f'{NAME}/alea/alea-exact.so'))
    return files


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tag = f'py3-none-{_platform_tag()}'
    info = f'{NAME}-{VERSION}.dist-info'
    name = f'{NAME}-{VERSION}-{tag}.whl'
    wheel = f'Wheel-Version: 1.0\nGenerator: alea-backend\nRoot-Is-Purelib: false\nTag: {tag}\n'
    record = []
    build_dir = tempfile.mkdtemp(prefix='alea-build-')
    try:
        native = _build_library(build_dir)
        with zipfile.ZipFile(os.path.join(wheel_directory, name), 'w',
                             zipfile.ZIP_DEFLATED) as z:
            for path, arcname in _package_files():
                data = open(path, 'rb').read()
                z.writestr(arcname, data)
                record.append(_record_line(arcname, data))
            for path, arcname in native:
                data = open(path, 'rb').read()
                zi = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
                zi.external_attr = 0o755 << 16  # a shared object: rwxr-xr-x
                zi.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(zi, data)
                record.append(_record_line(arcname, data))
            for fname, text in (('METADATA', METADATA), ('WHEEL', wheel)):
                arcname = f'{info}/{fname}'
                data = text.encode()
                z.writestr(arcname, data)
                record.append(_record_line(arcname, data))
            record.append(f'{info}/RECORD,,')
            z.writestr(f'{info}/RECORD', '\n'.join(record) + '\n')
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    return name


def _c_files():
    """The C tree's files for a source distribution: (path, name under c/)."""
    src = _c_source()
    for top in C_TREE:
        path = os.path.join(src, top)
        if os.path.isfile(path):
            yield path, top
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != '__pycache__')
            for f in sorted(files):
                full = os.path.join(root, f)
                yield full, os.path.relpath(full, src)


def build_sdist(sdist_directory, config_settings=None):
    base = f'{NAME}-{VERSION}'
    name = f'{base}.tar.gz'
    with tarfile.open(os.path.join(sdist_directory, name), 'w:gz') as t:
        for rel in ['pyproject.toml', 'README.md', '_build/backend.py']:
            t.add(os.path.join(HERE, rel), f'{base}/{rel}')
        for path, arcname in _package_files():
            t.add(path, f'{base}/{arcname}')
        for path, arcname in _c_files():
            t.add(path, f'{base}/c/{arcname}')
        info = tarfile.TarInfo(f'{base}/PKG-INFO')
        data = METADATA.encode()
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
