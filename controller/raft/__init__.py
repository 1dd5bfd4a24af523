"""The metadata quorum: a KRaft-style Raft over the metadata log (KIP-595, snapshots per KIP-630).

The core (``KafkaRaftClient``, ``QuorumState`` and its role states, ``ReplicatedLog``, the
messages, ``RaftConfig``) is sans-I/O: no sockets, clocks, randomness or files of its own.
``FileReplicatedLog``, ``FileQuorumStateStore``, ``raft_wire`` and ``RaftManager`` put it on
disk and on the network.
"""
