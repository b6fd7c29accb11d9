"""The skill format, database-free: the SKILL.md parser and the rules for safe file paths.

Shared by intake (pipeline), the registry and the graders, so that every part of the system
reads a skill the same way: one parser, one set of path rules.
"""
