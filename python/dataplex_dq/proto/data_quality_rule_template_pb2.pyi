from google.api import field_behavior_pb2 as _field_behavior_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DataQualityRuleTemplate(_message.Message):
    __slots__ = ("name", "dimension", "sql_collection", "input_parameters", "capabilities")
    class Sql(_message.Message):
        __slots__ = ("query",)
        QUERY_FIELD_NUMBER: _ClassVar[int]
        query: str
        def __init__(self, query: _Optional[str] = ...) -> None: ...
    class ParameterDescription(_message.Message):
        __slots__ = ("description", "default_value")
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
        description: str
        default_value: str
        def __init__(self, description: _Optional[str] = ..., default_value: _Optional[str] = ...) -> None: ...
    class InputParametersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: DataQualityRuleTemplate.ParameterDescription
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[DataQualityRuleTemplate.ParameterDescription, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    SQL_COLLECTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_PARAMETERS_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    name: str
    dimension: str
    sql_collection: _containers.RepeatedCompositeFieldContainer[DataQualityRuleTemplate.Sql]
    input_parameters: _containers.MessageMap[str, DataQualityRuleTemplate.ParameterDescription]
    capabilities: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., dimension: _Optional[str] = ..., sql_collection: _Optional[_Iterable[_Union[DataQualityRuleTemplate.Sql, _Mapping]]] = ..., input_parameters: _Optional[_Mapping[str, DataQualityRuleTemplate.ParameterDescription]] = ..., capabilities: _Optional[_Iterable[str]] = ...) -> None: ...
