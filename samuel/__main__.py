import sys

from samuel.cli import main

sys.exit(main())
