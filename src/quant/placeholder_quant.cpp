// placeholder: replaced as the quant module grows
