"""One call path: a kernel call's arguments typed by one table of argument kinds (signature), the
plan each argument signature selects (plan), that plan's prebuilt warm path (fast) and its
disk-cache records (records). docs/design/006-layers.md places it; `python tools/architecture.py`
traces it."""
