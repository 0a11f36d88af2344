// placeholder: replaced as the relation module grows
