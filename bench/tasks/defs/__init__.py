"""The tasks, one module per app; each module defines TASKS (suite.Task)."""
