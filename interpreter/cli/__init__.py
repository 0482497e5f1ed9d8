"""The `rules` command line: click commands and the renderers of their output."""

import gc

# Importing the command line makes thousands of objects and no garbage; the cycle collector
# would only slow the start (by milliseconds), so it is paused meanwhile.  The objects made are
# then frozen (they live as long as the process): else the first collection after the pause
# would scan them all, for nothing.
_collecting = gc.isenabled()
gc.disable()
try:
    from interpreter.cli.commands import main
finally:
    if _collecting:
        gc.freeze()
        gc.enable()

__all__ = ["main"]
