"""Shared by the tests of private indexes (test_auth_tls.py, test_index_serve_private.py): a CA
and certificates made with `openssl`, and a search of written files for a secret."""
import os
import shutil
import subprocess
from pathlib import Path

OPENSSL = shutil.which("openssl")


def openssl(*args, cwd):
    subprocess.run([OPENSSL, *map(str, args)], cwd=cwd, check=True, capture_output=True, timeout=60)


class Pki:
    """A CA, and certificates it signs (with `openssl ca`, which can date one in the past)."""

    def __init__(self, root):
        self.dir = root
        root.mkdir()
        (root / "new").mkdir()
        (root / "index.txt").write_text("")
        (root / "serial").write_text("1000\n")
        (root / "ca.cnf").write_text(f"""\
[ca]
default_ca = test
[test]
database = {root}/index.txt
new_certs_dir = {root}/new
serial = {root}/serial
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
""")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "3",
                "-subj", "/CN=vwheel test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=root)
        self.ca = root / "ca.pem"

    def issue(self, name, san, *, dates=("-days", "3"), client=False):
        """`name`.pem (the certificate) and `name`.key; `san` e.g. `IP:127.0.0.1`."""
        d = self.dir
        usage = "clientAuth" if client else "serverAuth"
        (d / f"{name}.ext").write_text(f"subjectAltName={san}\nextendedKeyUsage={usage}\n")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                "-subj", f"/CN={name}", cwd=d)
        openssl("ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", f"{name}.csr",
                "-out", f"{name}.pem", "-notext", "-extfile", f"{name}.ext", *dates, cwd=d)
        return d / f"{name}.pem", d / f"{name}.key"


def files_containing(secret, *roots):
    """The files below `roots` whose bytes hold `secret` (symbolic links not followed)."""
    found = []
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in names:
                path = Path(dirpath) / name
                if not path.is_symlink() and path.is_file() and secret.encode() in path.read_bytes():
                    found.append(path)
    return found
