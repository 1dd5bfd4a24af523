"""A sans-I/O KRaft-style Raft over the metadata log (KIP-595): no sockets, clocks or files of its own."""
