// placeholder: replaced as the estimate module grows
