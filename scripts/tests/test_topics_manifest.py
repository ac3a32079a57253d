"""The topic manifest (schemas/topics.yaml) is whole, and the Java constants are generated from it."""

import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import gen_topics  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


class TopicManifestTest(unittest.TestCase):
    def test_every_topic_names_an_existing_message(self) -> None:
        for t in gen_topics.load():
            path, _, message = t["message"].partition(":")
            proto = ROOT / "schemas" / path
            self.assertTrue(proto.is_file(), f"{t['name']}: {proto} does not exist")
            self.assertRegex(
                proto.read_text(), rf"\bmessage {message} \{{", f"{t['name']}: no message {message} in {path}"
            )

    def test_names_carry_a_major_version(self) -> None:
        for t in gen_topics.load():
            self.assertRegex(t["name"], r"^[a-z0-9]+(\.[a-z0-9]+)*\.v[0-9]+$", t["name"])

    def test_java_constants_are_generated_from_the_manifest(self) -> None:
        self.assertEqual(
            gen_topics.main(["--check"]),
            0,
            "flink-jobs/core/.../Topics.java differs from what scripts/gen_topics.py generates",
        )

    def test_a_malformed_entry_is_refused_with_its_name(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            bad = pathlib.Path(tmp) / "topics.yaml"
            bad.write_text("topics:\n  - name: x.v1\n    id: x\n    message: m\n    key: k\n    volume: huge\n"
                           "    cleanup: delete\n    producers: []\n    consumers: []\n")
            with self.assertRaisesRegex(ValueError, "x.v1: volume must be high or low"):
                gen_topics.load(bad)


if __name__ == "__main__":
    unittest.main()
