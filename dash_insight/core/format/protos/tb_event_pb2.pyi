from . import tb_summary_pb2 as _tb_summary_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Event(_message.Message):
    __slots__ = ("wall_time", "step", "file_version", "graph_def", "summary", "log_message", "session_log", "tagged_run_metadata", "meta_graph_def")
    WALL_TIME_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    FILE_VERSION_FIELD_NUMBER: _ClassVar[int]
    GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    LOG_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SESSION_LOG_FIELD_NUMBER: _ClassVar[int]
    TAGGED_RUN_METADATA_FIELD_NUMBER: _ClassVar[int]
    META_GRAPH_DEF_FIELD_NUMBER: _ClassVar[int]
    wall_time: float
    step: int
    file_version: str
    graph_def: bytes
    summary: _tb_summary_pb2.Summary
    log_message: LogMessage
    session_log: SessionLog
    tagged_run_metadata: TaggedRunMetadata
    meta_graph_def: bytes
    def __init__(self, wall_time: _Optional[float] = ..., step: _Optional[int] = ..., file_version: _Optional[str] = ..., graph_def: _Optional[bytes] = ..., summary: _Optional[_Union[_tb_summary_pb2.Summary, _Mapping]] = ..., log_message: _Optional[_Union[LogMessage, _Mapping]] = ..., session_log: _Optional[_Union[SessionLog, _Mapping]] = ..., tagged_run_metadata: _Optional[_Union[TaggedRunMetadata, _Mapping]] = ..., meta_graph_def: _Optional[bytes] = ...) -> None: ...

class LogMessage(_message.Message):
    __slots__ = ("level", "message")
    class Level(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[LogMessage.Level]
        DEBUGGING: _ClassVar[LogMessage.Level]
        INFO: _ClassVar[LogMessage.Level]
        WARN: _ClassVar[LogMessage.Level]
        ERROR: _ClassVar[LogMessage.Level]
        FATAL: _ClassVar[LogMessage.Level]
    UNKNOWN: LogMessage.Level
    DEBUGGING: LogMessage.Level
    INFO: LogMessage.Level
    WARN: LogMessage.Level
    ERROR: LogMessage.Level
    FATAL: LogMessage.Level
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    level: LogMessage.Level
    message: str
    def __init__(self, level: _Optional[_Union[LogMessage.Level, str]] = ..., message: _Optional[str] = ...) -> None: ...

class SessionLog(_message.Message):
    __slots__ = ("status", "checkpoint_path", "msg")
    class SessionStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATUS_UNSPECIFIED: _ClassVar[SessionLog.SessionStatus]
        START: _ClassVar[SessionLog.SessionStatus]
        STOP: _ClassVar[SessionLog.SessionStatus]
        CHECKPOINT: _ClassVar[SessionLog.SessionStatus]
    STATUS_UNSPECIFIED: SessionLog.SessionStatus
    START: SessionLog.SessionStatus
    STOP: SessionLog.SessionStatus
    CHECKPOINT: SessionLog.SessionStatus
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_PATH_FIELD_NUMBER: _ClassVar[int]
    MSG_FIELD_NUMBER: _ClassVar[int]
    status: SessionLog.SessionStatus
    checkpoint_path: str
    msg: str
    def __init__(self, status: _Optional[_Union[SessionLog.SessionStatus, str]] = ..., checkpoint_path: _Optional[str] = ..., msg: _Optional[str] = ...) -> None: ...

class TaggedRunMetadata(_message.Message):
    __slots__ = ("tag", "run_metadata")
    TAG_FIELD_NUMBER: _ClassVar[int]
    RUN_METADATA_FIELD_NUMBER: _ClassVar[int]
    tag: str
    run_metadata: bytes
    def __init__(self, tag: _Optional[str] = ..., run_metadata: _Optional[bytes] = ...) -> None: ...
