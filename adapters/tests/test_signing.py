"""Signature and keys file: the HMAC checked against protoc's own encoder and openssl's HMAC."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cheetah_adapters.keys import KeysFile, KeysFileError, parse_keys
from cheetah_adapters.messages import DEFAULT_SCHEMAS_DIR, RedirectMessages
from cheetah_adapters.signing import sign, signature_problem
from tests.signer import SECRETS, write_keys

TEXT = """
command_id: "c-42" issued_ms: 1700000000000 expires_ms: 1700000600000 device_id: "rtr-1"
src_prefix: "\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\377\\377\\n\\001\\000\\005" src_prefix_len: 128
dst_prefix: "\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\377\\377\\n\\002\\000\\000" dst_prefix_len: 120
src_port: 40000 dst_port: 5201 proto: 6 action: REDIRECT_ACTION_SCAVENGER reason: "cheetah" threshold_version: 7
link_id: "link-1" key_id: "2026-11"
"""


def protoc_encode(text: str) -> bytes:
    """The command encoded by protoc itself (not the Python runtime)."""
    code = "import sys; from grpc_tools import protoc; sys.exit(protoc.main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "protoc", f"-I{DEFAULT_SCHEMAS_DIR}", "--encode=cheetah.v1.RedirectCommand", "cheetah/v1/redirects.proto"],
        input=text.encode(), capture_output=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout


def openssl_hmac(secret: bytes, data: bytes) -> str:
    done = subprocess.run(["openssl", "dgst", "-sha256", "-mac", "HMAC", "-macopt", f"hexkey:{secret.hex()}", "-r"],
                          input=data, capture_output=True, check=True, timeout=30)
    return done.stdout.split()[0].decode()


def test_hmac_matches_protoc_encoding_and_openssl(messages: RedirectMessages, tmp_path: Path) -> None:
    encoded = protoc_encode(TEXT)
    expected = openssl_hmac(SECRETS["2026-11"], encoded)
    keys = KeysFile(write_keys(tmp_path / "k.json")).current()
    command = messages.command.FromString(encoded)
    sign(command, keys)
    assert command.hmac.hex() == expected
    assert signature_problem(command, keys) is None


def test_every_listed_key_verifies_and_any_change_breaks_the_signature(messages: RedirectMessages, tmp_path: Path) -> None:
    keys = KeysFile(write_keys(tmp_path / "k.json")).current()
    old = sign(messages.command.FromString(protoc_encode(TEXT)), keys, key_id="2026-10")
    assert signature_problem(old, keys) is None  # rotation: the previous key still verifies
    for field, value in (("expires_ms", 1700009999999), ("dst_port", 5202), ("device_id", "rtr-2"), ("key_id", "2026-11")):
        changed = messages.command()
        changed.CopyFrom(old)
        setattr(changed, field, value)
        problem = signature_problem(changed, keys)
        assert problem is not None and problem[0] == "bad_signature", field


def test_keys_file_is_validated_and_reloaded(tmp_path: Path) -> None:
    path = write_keys(tmp_path / "k.json", active="a", secrets={"a": b"1" * 32})
    keys = KeysFile(path)
    assert set(keys.current().secrets) == {"a"}
    write_keys(path, active="b", secrets={"a": b"1" * 32, "b": b"2" * 32})
    os.utime(path, ns=(1, 1))  # a different mtime even within the same clock tick
    assert keys.current().active == "b" and set(keys.current().secrets) == {"a", "b"}
    path.write_text("{broken")
    os.utime(path, ns=(2, 2))
    assert keys.current().active == "b"  # a broken edit keeps the last good keys
    os.chmod(path, 0o644)
    with pytest.raises(KeysFileError, match="chmod 600"):
        KeysFile(path)


@pytest.mark.parametrize("doc, message", [
    ({"active": "a", "keys": {"a": "00" * 16}}, "at least 32 bytes"),
    ({"active": "b", "keys": {"a": "00" * 32}}, "not one of the keys"),
    ({"active": "a", "keys": {"a": "zz"}}, "not hex"),
    ({"active": "a"}, "non-empty object"),
])
def test_bad_keys_files_are_explained(doc: dict[str, object], message: str) -> None:
    with pytest.raises(KeysFileError, match=message):
        parse_keys(json.dumps(doc), "k.json")
