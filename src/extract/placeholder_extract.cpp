// placeholder: replaced as the extract module grows
