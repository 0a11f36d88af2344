// placeholder: replaced as the tenet module grows
