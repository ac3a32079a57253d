"""Runs one Atheris fuzz target: python fuzz_atheris.py COMPONENT_DIR MODULE:FUNCTION [libFuzzer args].

The harness module is imported from COMPONENT_DIR with Atheris's coverage instrumentation on
everything it imports for the first time (the component's package, the stdlib modules it parses
with), then libFuzzer drives FUNCTION(bytes). scripts/fuzz_soak.py starts it for the atheris
lines of scripts/fuzz_targets.txt; the corpus replays call FUNCTION directly (no Atheris).
"""

from __future__ import annotations

import importlib
import sys

import atheris


def main() -> None:
    component, target, *fuzzer_args = sys.argv[1:]
    module_name, function_name = target.split(":")
    sys.path.insert(0, component)
    with atheris.instrument_imports():
        module = importlib.import_module(module_name)
    function = getattr(module, function_name)
    atheris.Setup([sys.argv[0], *fuzzer_args], function)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
