{PE[i,j]->PE[i+1,j];PE[i,j]->PE[i,j+1]}
