#!/usr/bin/env python3
"""Puts three.js (from the npm registry, pinned and checked against the registry's integrity
hash) where the browser monitor serves it: `monitor_web/static/vendor/`. Nothing is
committed and nothing comes from a CDN at run time; the page imports these local files.

Why not `npm install`: two files of one package are needed, and a tarball checked against
a pinned sha512 is all npm would do for them. Idempotent: a matching stamp skips the work."""
from __future__ import annotations

import base64
import hashlib
import io
import sys
import tarfile
import urllib.request
from pathlib import Path

PACKAGE, VERSION = "three", "0.170.0"
TARBALL = f"https://registry.npmjs.org/{PACKAGE}/-/{PACKAGE}-{VERSION}.tgz"
INTEGRITY = "sha512-FQK+LEpYc0fBD+J8g6oSEyyNzjp+Q7Ks1C568WWaoMRLW+TkNNWmenWeGgJjV105Gd+p/2ql1ZcjYvNiPZBhuQ=="
FILES = {  # path in the tarball -> name served under /vendor/
    "package/build/three.module.min.js": "three.module.min.js",
    "package/examples/jsm/controls/OrbitControls.js": "OrbitControls.js",
    "package/LICENSE": "three-LICENSE.txt",
}
VENDOR = Path(__file__).resolve().parents[1] / "src" / "sim_master" / "sim_master" / "monitor_web" / "static" / "vendor"


def main() -> int:
    stamp = VENDOR / ".stamp"
    if stamp.exists() and stamp.read_text() == INTEGRITY and all((VENDOR / n).exists() for n in FILES.values()):
        print(f"[web assets] {PACKAGE} {VERSION} up to date")
        return 0
    try:
        with urllib.request.urlopen(TARBALL, timeout=60) as reply:
            data = reply.read()
    except OSError as exc:
        print(f"[web assets] cannot download {TARBALL}: {exc}", file=sys.stderr)
        return 1
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != INTEGRITY:
        print(f"[web assets] {TARBALL}: integrity {digest} is not the pinned {INTEGRITY}", file=sys.stderr)
        return 1
    VENDOR.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member, name in FILES.items():
            extracted = tar.extractfile(member)
            if extracted is None:
                print(f"[web assets] {member} missing from {TARBALL}", file=sys.stderr)
                return 1
            (VENDOR / name).write_bytes(extracted.read())
    stamp.write_text(INTEGRITY)
    print(f"[web assets] {PACKAGE} {VERSION} -> {VENDOR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
