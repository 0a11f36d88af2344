{S[i,j]->PE[i%4]}
