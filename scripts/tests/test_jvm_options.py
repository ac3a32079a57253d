"""flink-jobs/cli/jvm.options is the one list of JVM options of the Java commands; the Maven
build's test JVMs (pom.xml cheetah.addOpens, which Maven cannot read from a file) open the same
JDK internals, and both launchers read the file rather than carrying their own copy."""

import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def options() -> list[str]:
    lines = (ROOT / "flink-jobs" / "cli" / "jvm.options").read_text().splitlines()
    return [x.strip() for x in lines if x.strip() and not x.strip().startswith("#")]


class JvmOptionsTest(unittest.TestCase):
    def test_the_pom_opens_what_the_commands_open(self) -> None:
        pom = (ROOT / "pom.xml").read_text()
        m = re.search(r"<cheetah\.addOpens>([^<]*)</cheetah\.addOpens>", pom)
        assert m, "pom.xml has no cheetah.addOpens property"
        self.assertEqual(sorted(m.group(1).split()), sorted(o for o in options() if o.startswith("--add-opens")))

    def test_a_heap_and_a_collector_are_chosen(self) -> None:
        opts = options()
        self.assertEqual(len([o for o in opts if o.startswith("-Xmx")]), 1, opts)
        self.assertEqual(len([o for o in opts if re.fullmatch(r"-XX:\+Use\w+GC", o)]), 1, opts)

    def test_the_launchers_read_the_file(self) -> None:
        for script in ("cheetah", "flink-jobs/bench/run.sh"):
            text = (ROOT / script).read_text()
            self.assertIn("flink-jobs/cli/jvm.options", text, script)
            self.assertNotIn("--add-opens", text, f"{script} carries its own --add-opens")
            self.assertNotRegex(text, r"-XX:\+Use\w+GC", f"{script} chooses its own collector")


if __name__ == "__main__":
    unittest.main()
