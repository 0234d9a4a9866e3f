"""`rt.keras.applications`: Keras's pretrained image models, built with Keras's layer names so
Keras's own ImageNet weight files load (`weights="imagenet"` fetches each once into
`~/.keras/models`; they are read as data, never as code). Each family's module has the
`preprocess_input` its weights expect and `decode_predictions`."""

from . import imagenet_utils, mobilenet_v2, resnet, resnet50, resnet_v2, vgg16, vgg19
from ._resnet import ResNet50, ResNet50V2, ResNet101, ResNet101V2, ResNet152, ResNet152V2
from ._vgg import VGG16, VGG19
from .mobilenet_v2 import MobileNetV2

__all__ = [
    "VGG16",
    "VGG19",
    "MobileNetV2",
    "ResNet50",
    "ResNet50V2",
    "ResNet101",
    "ResNet101V2",
    "ResNet152",
    "ResNet152V2",
    "imagenet_utils",
    "mobilenet_v2",
    "resnet",
    "resnet50",
    "resnet_v2",
    "vgg16",
    "vgg19",
]
