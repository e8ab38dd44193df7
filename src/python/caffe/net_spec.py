"""pycaffe's net_spec: nets written as Python calls, turned into a NetParameter.

    from caffe import layers as L, params as P
    n = caffe.NetSpec()
    n.data, n.label = L.Data(source="train_lmdb", backend=P.Data.LMDB, batch_size=64, ntop=2,
                             transform_param=dict(scale=1. / 255))
    n.conv1 = L.Convolution(n.data, kernel_size=5, num_output=20,
                            weight_filler=dict(type="xavier"))
    n.pool1 = L.Pooling(n.conv1, kernel_size=2, stride=2, pool=P.Pooling.MAX)
    n.relu1 = L.ReLU(n.pool1, in_place=True)
    n.loss = L.SoftmaxWithLoss(n.relu1, n.label)
    open("net.prototxt", "w").write(str(n.to_proto()))

A call L.Type(*bottoms, **fields) makes a layer of that type; it returns its top, or a tuple of
ntop tops. Fields that LayerParameter has (name, param, include, exclude, loss_weight,
propagate_down, engine, ...) are set on the layer; every other field goes into the type's own
parameter message (Convolution: convolution_param), found as pycaffe finds it: the
LayerParameter field whose message is named TypeParameter. Values: numbers and strings are set,
dicts fill a message, lists fill a repeated field (dicts in a list add messages). in_place=True
makes the top the first bottom's blob. P.Type.VALUE is an enum value of TypeParameter.

Names: a top assigned to a NetSpec attribute gets that name, and its layer the name of its first
top; others get the type and a counter (Convolution1). to_proto() lists the layers in the order
their tops are first needed, bottoms before the layers using them.
"""

from collections import OrderedDict

from .proto import caffe_pb2


def _param_fields():
    """Layer type name -> the LayerParameter field holding its parameters."""
    fields = {}
    for field in caffe_pb2.LayerParameter.DESCRIPTOR.fields:
        if field.name.endswith("_param") and field.message_type is not None:
            message = field.message_type.name
            if message.endswith("Parameter"):
                fields[message[:-len("Parameter")]] = field.name
    return fields


_PARAM_FIELDS = _param_fields()
# Types whose parameters live in another type's message, as in pycaffe's table.
_PARAM_FIELDS.update({"Deconvolution": "convolution_param", "ConvolutionDepthwise":
                      "convolution_param", "SoftmaxWithLoss": "softmax_param",
                      "Python": "python_param"})


def _assign(message, name, value):
    """Sets field `name` of `message` from a Python value (see the module's docstring)."""
    try:
        field = message.DESCRIPTOR.fields_by_name[name]
    except KeyError:
        raise AttributeError("%s has no field %r" % (message.DESCRIPTOR.name, name)) from None
    repeated = field.label == field.LABEL_REPEATED
    if isinstance(value, (list, tuple)):
        if not repeated:
            raise TypeError("%s.%s takes one value, not a list" % (message.DESCRIPTOR.name, name))
        target = getattr(message, name)
        for item in value:
            if isinstance(item, dict):
                element = target.add()
                for key, v in item.items():
                    _assign(element, key, v)
            else:
                target.append(item)
        return
    if isinstance(value, dict):
        target = getattr(message, name).add() if repeated else getattr(message, name)
        for key, v in value.items():
            _assign(target, key, v)
        return
    if repeated:
        getattr(message, name).append(value)
    else:
        setattr(message, name, value)


class Top:
    """One output blob of a layer call: the call and which of its tops it is."""

    def __init__(self, fn, n):
        self.fn = fn
        self.n = n

    def to_proto(self):
        """A NetParameter holding this top's layer and everything it depends on."""
        return to_proto(self)

    def _to_proto(self, layers, names, autonames):
        return self.fn._to_proto(layers, names, autonames)


class Function:
    """A layer call: its type, bottoms and fields."""

    def __init__(self, type_name, inputs, params):
        self.type_name = type_name
        for i, bottom in enumerate(inputs):
            if not isinstance(bottom, Top):
                raise TypeError("bottom %d of %s is a %s, not the top of a layer" %
                                (i, type_name, type(bottom).__name__))
        self.inputs = inputs
        self.params = dict(params)
        self.ntop = self.params.pop("ntop", 1)
        self.in_place = self.params.pop("in_place", False)
        if self.in_place and not inputs:
            raise ValueError("%s with in_place=True needs a bottom" % type_name)
        self.tops = tuple(Top(self, n) for n in range(self.ntop))

    def _get_name(self, names, autonames):
        if self not in names and self.ntop > 0:
            names[self] = self._get_top_name(self.tops[0], names, autonames)
        elif self not in names:
            autonames[self.type_name] += 1
            names[self] = self.type_name + str(autonames[self.type_name])
        return names[self]

    def _get_top_name(self, top, names, autonames):
        if top not in names:
            autonames[top.fn.type_name] += 1
            names[top] = top.fn.type_name + str(autonames[top.fn.type_name])
        return names[top]

    def _to_proto(self, layers, names, autonames):
        if self in layers:
            return
        bottom_names = []
        for bottom in self.inputs:
            bottom._to_proto(layers, names, autonames)
            bottom_names.append(layers[bottom.fn].top[bottom.n])
        layer = caffe_pb2.LayerParameter()
        layer.type = self.type_name
        layer.bottom.extend(bottom_names)
        if self.in_place:
            layer.top.extend(layer.bottom[:1])
        else:
            layer.top.extend(self._get_top_name(top, names, autonames) for top in self.tops)
        layer.name = self._get_name(names, autonames)
        for key, value in self.params.items():
            if key in caffe_pb2.LayerParameter.DESCRIPTOR.fields_by_name:
                _assign(layer, key, value)
            else:
                field = _PARAM_FIELDS.get(self.type_name)
                if field is None:
                    raise AttributeError("%s has no parameter message for its field %r" %
                                         (self.type_name, key))
                _assign(getattr(layer, field), key, value)
        layers[self] = layer


class NetSpec:
    """Tops assigned to attributes, named by them; to_proto() gives the net."""

    def __init__(self):
        super().__setattr__("tops", OrderedDict())

    def __setattr__(self, name, value):
        self.tops[name] = value

    def __getattr__(self, name):
        try:
            return self.tops[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setitem__(self, key, value):
        self.__setattr__(key, value)

    def __getitem__(self, item):
        return self.__getattr__(item)

    def __delitem__(self, name):
        del self.tops[name]

    def keys(self):
        return list(self.tops.keys())

    def vals(self):
        return list(self.tops.values())

    def to_proto(self):
        names = {v: k for k, v in self.tops.items()}
        autonames = _Counter()
        layers = OrderedDict()
        for top in self.tops.values():
            top._to_proto(layers, names, autonames)
        net = caffe_pb2.NetParameter()
        net.layer.extend(layers.values())
        return net


def to_proto(*tops):
    """A NetParameter of the layers the tops depend on, with pycaffe's automatic names."""
    layers = OrderedDict()
    autonames = _Counter()
    for top in tops:
        top.fn._to_proto(layers, {}, autonames)
    net = caffe_pb2.NetParameter()
    net.layer.extend(layers.values())
    return net


class _Counter(dict):
    def __missing__(self, key):
        return 0


class Layers:
    """L.Type(*bottoms, **fields): a layer call (see the module's docstring)."""

    def __getattr__(self, name):
        def layer_fn(*args, **kwargs):
            fn = Function(name, args, kwargs)
            if fn.ntop == 0:
                return fn
            if fn.ntop == 1:
                return fn.tops[0]
            return fn.tops
        return layer_fn


class Parameters:
    """P.Type.VALUE: the enum value VALUE of TypeParameter."""

    def __getattr__(self, name):
        message = getattr(caffe_pb2, name + "Parameter", None)
        if message is None:
            raise AttributeError("caffe_pb2 has no message %sParameter" % name)

        class _Enums:
            def __getattr__(self, value):
                return getattr(message, value)

        return _Enums()


layers = Layers()
params = Parameters()
