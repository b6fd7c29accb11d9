"""``skillgate``: install verified skills from a Skillgate registry, and check them later.

Standard library only, so it runs anywhere Python 3.11 does, without Django.
"""

VERSION = "0.1.0"
