"""Signature and keys file: the HMAC checked against protoc's own encoder and openssl's HMAC."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cheetah_adapters.keys import KeysFile, KeysFileError, parse_keys
from cheetah_adapters.messages import DEFAULT_SCHEMAS_DIR, RedirectMessages
from cheetah_adapters.signing import sign, signature_problem
from tests.signer import SECRETS, Signer, write_keys

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


def test_a_broken_version_warns_once_and_never_quotes_a_secret(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    secret = "7e" * 32
    path = write_keys(tmp_path / "k.json", active="a", secrets={"a": bytes.fromhex(secret)})
    keys = KeysFile(path)
    path.write_text('{"active": "b", "keys": {"a": "%s", "b": %s}}' % (secret, "5d" * 32))  # b unquoted
    os.utime(path, ns=(3, 3))
    with caplog.at_level(logging.WARNING, logger="cheetah_adapters"):
        for _ in range(3):
            assert keys.current().active == "a"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(path) in warnings[0] and "not JSON" in warnings[0], warnings
    assert secret[:16] not in warnings[0] and "5d" * 8 not in warnings[0]


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


def test_a_rotation_reaches_a_running_verifier_through_a_kubernetes_secret_swap(messages: RedirectMessages, tmp_path: Path) -> None:
    """docs/REDIRECTS.md, "Key rotation": the kubelet's layout of a Secret mounted as a directory
    (redirects.json -> ..data/redirects.json, ..data -> a version directory) and its update (a new
    version directory, a new ..data link renamed over the old). A command signed with the old key
    verifies while both keys are listed and is refused as unknown_key once the old key is retired.
    Every version has the same size and modification time: only the file behind the links changes."""
    mount = tmp_path / "secret"
    mount.mkdir()
    old, new = SECRETS["2026-10"], bytes(range(200, 240))  # the same lengths: the same file size

    def publish(version: str, active: str, secrets: dict[str, bytes]) -> None:
        folder = mount / version
        folder.mkdir()
        write_keys(folder / "redirects.json", active=active, secrets=secrets)
        os.utime(folder / "redirects.json", ns=(10**18, 10**18))
        (mount / "..data_tmp").symlink_to(version)
        os.replace(mount / "..data_tmp", mount / "..data")

    publish("..v1", "2026-10", {"2026-10": old, "2026-11": b"\0" * 40})
    (mount / "redirects.json").symlink_to("..data/redirects.json")
    keys = KeysFile(mount / "redirects.json")
    by_old = messages.command.FromString(protoc_encode(TEXT))
    by_old.key_id = "2026-10"
    Signer(messages, "rtr-1", key_id="2026-10", secret=old).sign(by_old)
    assert signature_problem(by_old, keys.current()) is None

    publish("..v2", "2026-11", {"2026-10": old, "2026-11": new})  # rotate: both listed
    assert keys.current().active == "2026-11"
    assert signature_problem(by_old, keys.current()) is None
    by_new = messages.command.FromString(protoc_encode(TEXT))
    Signer(messages, "rtr-1", key_id="2026-11", secret=new).sign(by_new)
    assert signature_problem(by_new, keys.current()) is None

    publish("..v3", "2026-11", {"2026-11": new, "2026-12": b"\1" * 40})  # retire 2026-10
    problem = signature_problem(by_old, keys.current())
    assert problem is not None and problem[0] == "unknown_key", problem
    assert old.hex() not in problem[1]
    assert signature_problem(by_new, keys.current()) is None


@pytest.mark.parametrize("doc, message", [
    ({"active": "a", "keys": {"a": "00" * 16}}, "at least 32 bytes"),
    ({"active": "b", "keys": {"a": "00" * 32}}, "not one of the keys"),
    ({"active": "a", "keys": {"a": "zz"}}, "not hex"),
    ({"active": "a"}, "non-empty object"),
])
def test_bad_keys_files_are_explained(doc: dict[str, object], message: str) -> None:
    with pytest.raises(KeysFileError, match=message):
        parse_keys(json.dumps(doc), "k.json")
