"""The commands a test starts run the code of this checkout, not a copy installed earlier."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import CHECKOUT, RULES, checkout_env


def test_a_python_a_test_starts_imports_this_checkout() -> None:
    done = subprocess.run([sys.executable, "-c", "import interpreter; print(interpreter.__file__)"],
                          capture_output=True, text=True, check=True)
    assert Path(done.stdout.strip()).resolve() == CHECKOUT / "interpreter" / "__init__.py"


def test_the_rules_a_test_starts_is_this_checkouts() -> None:
    done = subprocess.run([*RULES, "list"], capture_output=True, text=True, check=True, env=checkout_env())
    assert "lockwood" in done.stdout
    probe = "import interpreter.cli, sys; print(interpreter.cli.__file__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                          env=checkout_env({"PATH": "/usr/bin:/bin"}))
    assert Path(done.stdout.strip()).resolve() == CHECKOUT / "interpreter" / "cli" / "__init__.py"

