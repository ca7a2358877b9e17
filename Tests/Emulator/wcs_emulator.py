#!/usr/bin/python3
"""Entry point of the WCS emulator: `/usr/bin/python3 Tests/Emulator/wcs_emulator.py --help`.

When it is ready it prints exactly one JSON line on stdout, for example
    {"ready": true, "port": 40001, "control_port": 40002, "scheme": "ws", "pid": 1234}
and logs to stderr. See Tests/Emulator/README.md for the flags and the control API.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from wcsemu.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
