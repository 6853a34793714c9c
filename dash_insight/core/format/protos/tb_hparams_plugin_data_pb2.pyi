from google.protobuf import struct_pb2 as _struct_pb2
from . import tb_hparams_api_pb2 as _tb_hparams_api_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HParamsPluginData(_message.Message):
    __slots__ = ("version", "experiment", "session_start_info", "session_end_info")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EXPERIMENT_FIELD_NUMBER: _ClassVar[int]
    SESSION_START_INFO_FIELD_NUMBER: _ClassVar[int]
    SESSION_END_INFO_FIELD_NUMBER: _ClassVar[int]
    version: int
    experiment: _tb_hparams_api_pb2.Experiment
    session_start_info: SessionStartInfo
    session_end_info: SessionEndInfo
    def __init__(self, version: _Optional[int] = ..., experiment: _Optional[_Union[_tb_hparams_api_pb2.Experiment, _Mapping]] = ..., session_start_info: _Optional[_Union[SessionStartInfo, _Mapping]] = ..., session_end_info: _Optional[_Union[SessionEndInfo, _Mapping]] = ...) -> None: ...

class SessionStartInfo(_message.Message):
    __slots__ = ("hparams", "model_uri", "monitor_url", "group_name", "start_time_secs")
    class HparamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _struct_pb2.Value
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...
    HPARAMS_FIELD_NUMBER: _ClassVar[int]
    MODEL_URI_FIELD_NUMBER: _ClassVar[int]
    MONITOR_URL_FIELD_NUMBER: _ClassVar[int]
    GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_SECS_FIELD_NUMBER: _ClassVar[int]
    hparams: _containers.MessageMap[str, _struct_pb2.Value]
    model_uri: str
    monitor_url: str
    group_name: str
    start_time_secs: float
    def __init__(self, hparams: _Optional[_Mapping[str, _struct_pb2.Value]] = ..., model_uri: _Optional[str] = ..., monitor_url: _Optional[str] = ..., group_name: _Optional[str] = ..., start_time_secs: _Optional[float] = ...) -> None: ...

class SessionEndInfo(_message.Message):
    __slots__ = ("status", "end_time_secs")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    END_TIME_SECS_FIELD_NUMBER: _ClassVar[int]
    status: _tb_hparams_api_pb2.Status
    end_time_secs: float
    def __init__(self, status: _Optional[_Union[_tb_hparams_api_pb2.Status, str]] = ..., end_time_secs: _Optional[float] = ...) -> None: ...
