// placeholder: replaced as the arch module grows
