"""The index of a summary base directory: discovery of jobs, the background loader that reads
new bytes, the diskcache index shared by worker processes, and the typed job and file states."""
