"""agentrl trainer: the PyTorch side (policy model, ONNX export, advantages, clipped loss, train step)."""
