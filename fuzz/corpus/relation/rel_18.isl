{PE[i]->PE[i+1]}
