package onnx

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// The few ONNX messages the exporter writes, encoded by hand with protowire.
// Field numbers and enum values are those of onnx/onnx.proto (IR version 7,
// proto2 syntax, which on the wire is the same as proto3 for these fields).
//
// Why not generated code: the generated types need protoc and
// protoc-gen-go, which a fresh machine here does not have, and they would add
// ~10k lines of generated Go for the dozen messages used below. protowire is
// the low-level half of google.golang.org/protobuf (already in the module
// graph), so the bytes are written by the same library either way.

// Field numbers of onnx.proto.
const (
	// ModelProto
	modelIRVersion       = 1
	modelProducerName    = 2
	modelProducerVersion = 3
	modelDomain          = 4
	modelModelVersion    = 5
	modelDocString       = 6
	modelGraph           = 7
	modelOpsetImport     = 8
	modelMetadataProps   = 14

	// OperatorSetIdProto
	opsetDomain  = 1
	opsetVersion = 2

	// StringStringEntryProto
	entryKey   = 1
	entryValue = 2

	// GraphProto
	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphDocString   = 10
	graphInput       = 11
	graphOutput      = 12

	// NodeProto
	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5

	// AttributeProto
	attrName = 1
	attrF    = 2
	attrI    = 3
	attrInts = 8
	attrType = 20

	// TensorProto
	tensorDims     = 1
	tensorDataType = 2
	tensorName     = 8
	tensorRawData  = 9

	// ValueInfoProto
	valueName = 1
	valueType = 2

	// TypeProto and TypeProto.Tensor
	typeTensorType   = 1
	tensorElemType   = 1
	tensorShapeField = 2

	// TensorShapeProto and TensorShapeProto.Dimension
	shapeDim      = 1
	dimValueField = 1
	dimParamField = 2
)

// Enum values of onnx.proto.
const (
	attributeFloat = 1 // AttributeProto.FLOAT
	attributeInt   = 2 // AttributeProto.INT
	attributeInts  = 7 // AttributeProto.INTS

	dataTypeFloat = 1 // TensorProto.FLOAT
	dataTypeInt64 = 7 // TensorProto.INT64
)

// msg is one message being built.
type msg []byte

func (m msg) varint(field protowire.Number, v uint64) msg {
	m = protowire.AppendTag(m, field, protowire.VarintType)
	return protowire.AppendVarint(m, v)
}

func (m msg) int64(field protowire.Number, v int64) msg { return m.varint(field, uint64(v)) }

func (m msg) bytes(field protowire.Number, b []byte) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

func (m msg) str(field protowire.Number, s string) msg {
	m = protowire.AppendTag(m, field, protowire.BytesType)
	return protowire.AppendString(m, s)
}

func (m msg) sub(field protowire.Number, child msg) msg { return m.bytes(field, child) }

func (m msg) float(field protowire.Number, f float32) msg {
	m = protowire.AppendTag(m, field, protowire.Fixed32Type)
	return protowire.AppendFixed32(m, math.Float32bits(f))
}

// dim is one dimension of a value's shape: a fixed size, or a named symbolic
// one when param is set.
type dim struct {
	value int64
	param string
}

// valueInfo encodes a float tensor's name, element type and shape.
func valueInfo(name string, dims ...dim) msg {
	var shape msg
	for _, d := range dims {
		var dm msg
		if d.param != "" {
			dm = dm.str(dimParamField, d.param)
		} else {
			dm = dm.int64(dimValueField, d.value)
		}
		shape = shape.sub(shapeDim, dm)
	}
	tt := msg(nil).int64(tensorElemType, dataTypeFloat).sub(tensorShapeField, shape)
	typ := msg(nil).sub(typeTensorType, tt)
	return msg(nil).str(valueName, name).sub(valueType, typ)
}

// floatTensor encodes an initializer: a named float32 tensor with its data as
// little-endian raw_data.
func floatTensor(name string, shape []int, data []float32) msg {
	var m msg
	for _, d := range shape {
		m = m.int64(tensorDims, int64(d))
	}
	m = m.int64(tensorDataType, dataTypeFloat).str(tensorName, name)
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return m.bytes(tensorRawData, raw)
}

// int64Tensor encodes an initializer: a named int64 tensor of one dimension
// (the starts, ends and axes that Slice takes as inputs).
func int64Tensor(name string, data []int64) msg {
	m := msg(nil).int64(tensorDims, int64(len(data)))
	m = m.int64(tensorDataType, dataTypeInt64).str(tensorName, name)
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return m.bytes(tensorRawData, raw)
}

// attribute is one node attribute: an int, a list of ints or a float.
type attribute struct {
	name string
	kind int // attributeInt, attributeInts or attributeFloat
	i    int64
	ints []int64
	f    float32
}

func intAttr(name string, v int64) attribute { return attribute{name: name, kind: attributeInt, i: v} }
func intsAttr(name string, v ...int64) attribute {
	return attribute{name: name, kind: attributeInts, ints: v}
}
func floatAttr(name string, v float32) attribute {
	return attribute{name: name, kind: attributeFloat, f: v}
}

func (a attribute) encode() msg {
	m := msg(nil).str(attrName, a.name)
	switch a.kind {
	case attributeInt:
		m = m.int64(attrI, a.i)
	case attributeFloat:
		m = m.float(attrF, a.f)
	case attributeInts:
		for _, v := range a.ints {
			m = m.int64(attrInts, v)
		}
	}
	return m.int64(attrType, int64(a.kind))
}

// node encodes one operator application.
func node(name, op string, inputs, outputs []string, attrs ...attribute) msg {
	var m msg
	for _, in := range inputs {
		m = m.str(nodeInput, in)
	}
	for _, out := range outputs {
		m = m.str(nodeOutput, out)
	}
	m = m.str(nodeName, name).str(nodeOpType, op)
	for _, a := range attrs {
		m = m.sub(nodeAttribute, a.encode())
	}
	return m
}
