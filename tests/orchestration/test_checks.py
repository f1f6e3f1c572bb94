"""memory.orchestration.checks: a subprocess under the gate's timeout says why it gave no answer."""
import sys

from memory.orchestration import checks


def test_a_command_that_hangs_or_cannot_run_says_why(tmp_path):
    assert checks.run([sys.executable, "-c", "print('ok')"], str(tmp_path), 5) == (0, "ok\n")
    code, why = checks.run([sys.executable, "-c", "import time; time.sleep(5)"], str(tmp_path), 0.2)
    assert code is None and "timed out after 0.2s" in why
    code, why = checks.run(["no-such-command-here"], str(tmp_path), 1)
    assert code is None and "could not run" in why
