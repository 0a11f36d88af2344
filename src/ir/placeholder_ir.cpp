// placeholder: replaced as the ir module grows
