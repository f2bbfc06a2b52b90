"""Files in and out of the kernel's working directory (part of the kernel's one source, see
``__init__``): a tar from the host unpacked without links or paths leaving it, and a path packed
as a tar for the host. Stdlib only."""

import io
import os
import tarfile


def safe_extract(data, target):
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        base = os.path.realpath(target)
        for member in tar.getmembers():
            dest = os.path.realpath(os.path.join(base, member.name))
            if not (dest == base or dest.startswith(base + os.sep)):
                raise ValueError(f"refusing to extract {member.name!r} outside {target}")
            if member.issym() or member.islnk() or member.isdev():
                raise ValueError(f"refusing to extract link or device {member.name!r}")
        tar.extractall(base)


def archive(root, path):
    full = os.path.realpath(os.path.join(root, path))
    if not (full == root or full.startswith(root + os.sep)) or not os.path.exists(full):
        raise FileNotFoundError(path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        tar.add(full, arcname=os.path.basename(full) or ".")
    return buf.getvalue()
